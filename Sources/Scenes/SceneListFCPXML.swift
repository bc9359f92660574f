import Foundation

extension SceneList {
    /// FCPXML 1.9: the clip as an asset, and a project whose sequence's spine holds an
    /// asset clip a scene, back to back. Times are whole frames at the clip's rate,
    /// written as FCPXML's rational seconds (1001/30000s a frame at 29.97).
    func fcpxml(source: SceneListSource) -> String {
        let (n, d) = source.rational
        // A frame lasts d/n seconds; `frames` frames last frames·d/n.
        func seconds(_ frames: Int) -> String {
            if frames == 0 { return "0s" }
            var (top, bottom) = (frames * d, n)
            var (a, b) = (top, bottom)
            while b != 0 { (a, b) = (b, a % b) }
            top /= a; bottom /= a
            return bottom == 1 ? "\(top)s" : "\(top)/\(bottom)s"
        }
        let name = Self.xmlEscaped(source.name)
        let first = scenes.first?.start.frame ?? 0, total = (scenes.last?.end.frame ?? 0) - first
        var size = ""
        if let w = source.width, let h = source.height { size = " width=\"\(w)\" height=\"\(h)\"" }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#, "<!DOCTYPE fcpxml>", #"<fcpxml version="1.9">"#, "  <resources>",
            "    <format id=\"r1\" frameDuration=\"\(seconds(1))\"\(size)/>",
            "    <asset id=\"r2\" name=\"\(name)\" start=\"\(seconds(first))\" duration=\"\(seconds(total))\" hasVideo=\"1\" format=\"r1\">",
            "      <media-rep kind=\"original-media\" src=\"\(Self.xmlEscaped(source.url))\"/>", "    </asset>", "  </resources>",
            "  <library>", "    <event name=\"\(name)\">", "      <project name=\"\(name) scenes\">",
            "        <sequence format=\"r1\" duration=\"\(seconds(total))\" tcStart=\"0s\" tcFormat=\"NDF\">", "          <spine>",
        ]
        for (i, scene) in scenes.enumerated() {
            lines.append("            <asset-clip name=\"Scene \(i + 1)\" ref=\"r2\" offset=\"\(seconds(scene.start.frame - first))\" "
                         + "start=\"\(seconds(scene.start.frame))\" duration=\"\(seconds(scene.end.frame - scene.start.frame))\" format=\"r1\"/>")
        }
        lines += ["          </spine>", "        </sequence>", "      </project>", "    </event>", "  </library>", "</fcpxml>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` with XML's five special characters as entities.
    static func xmlEscaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }
}
