import Foundation

extension SceneList {
    /// A CMX 3600 EDL: an event a scene, cut from reel `AX`, each scene's source in and
    /// out (its first picture, and the picture after its last) also its record in and out,
    /// since the scenes follow each other from the clip's start. Timecodes count frames at
    /// the clip's whole rate, non-drop (29.97 fps counts 30), as editors read them.
    func edl(source: SceneListSource) -> String {
        // Titles are one line of at most 70 printable ASCII characters.
        let title = String(source.name.unicodeScalars.map { $0.isASCII && $0.value >= 32 && $0.value < 127 ? Character($0) : "_" }.prefix(70))
        var lines = ["TITLE: \(title)", "FCM: NON-DROP FRAME", ""]
        for (i, scene) in scenes.enumerated() {
            let tcIn = source.timecode(frame: scene.start.frame), tcOut = source.timecode(frame: scene.end.frame)
            lines.append(String(format: "%03d  AX       V     C        ", i + 1) + "\(tcIn) \(tcOut) \(tcIn) \(tcOut)")
            lines.append("* FROM CLIP NAME: \(title)")
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }
}
