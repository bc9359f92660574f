import Foundation

extension SceneList {
    /// A page of its own: the cut list, then a table of the scenes with the columns of
    /// PySceneDetect's `save-html` (and its CSV): first and last picture, times and length.
    func html(source: SceneListSource) -> String {
        let name = Self.xmlEscaped(source.name)
        var rows: [String] = []
        for (i, scene) in scenes.enumerated() {
            let (s, e) = (scene.start.time.seconds, scene.end.time.seconds)
            let cells = ["\(i + 1)", "\(scene.start.frame + 1)", SceneList.timecode(s), String(format: "%.3f", s), "\(scene.end.frame)",
                         SceneList.timecode(e), String(format: "%.3f", e), "\(scene.end.frame - scene.start.frame)",
                         SceneList.timecode(e - s), String(format: "%.3f", e - s)]
            rows.append("<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>")
        }
        let header = ["Scene Number", "Start Frame", "Start Timecode", "Start Time (seconds)", "End Frame", "End Timecode",
                      "End Time (seconds)", "Length (frames)", "Length (timecode)", "Length (seconds)"]
        let cutList = cuts.map { SceneList.timecode($0.time.seconds) }.joined(separator: ", ")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(name): scenes</title>
            <style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #999;padding:.2em .6em;text-align:right}</style>
            </head><body>
            <h1>\(name)</h1>
            <p>\(Self.xmlEscaped(source.location))</p>
            <table id="cuts"><tr><th>Timecode List</th></tr><tr><td>\(cutList)</td></tr></table>
            <p></p>
            <table id="scenes"><tr>\(header.map { "<th>\($0)</th>" }.joined())</tr>
            \(rows.joined(separator: "\n"))
            </table>
            </body></html>

            """
    }
}
