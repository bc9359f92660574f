import Foundation
import TestSupport
import Testing

/// `vidfx scenes --format edl|otio|fcpxml|html` (issue 49): each export read back by the
/// tools of its field (OpenTimelineIO with its CMX 3600 adapter, an XML parser, an HTML
/// parser), its scenes the cut list's, frame for frame.
@Suite struct SceneExportTests {
    static let python = CLI.directory.appendingPathComponent(".oracle-venv/bin/python").path

    /// Reads every export of `clip` back and prints each one's scenes as [first, length] in frames.
    static let reader = """
        import sys, json, xml.etree.ElementTree as ET
        from html.parser import HTMLParser
        from fractions import Fraction
        import opentimelineio as otio
        folder, rate = sys.argv[1], float(sys.argv[2])
        out = {}
        t = otio.adapters.read_from_file(folder + "/s.otio")
        out["otio"] = [[c.source_range.start_time.to_frames(), c.source_range.duration.to_frames()] for c in t.tracks[0]]
        out["otio_url"] = t.tracks[0][0].media_reference.target_url
        e = otio.adapters.read_from_file(folder + "/s.edl", rate=rate)
        out["edl"] = [[c.source_range.start_time.to_frames(), c.source_range.duration.to_frames()] for c in e.tracks[0]]
        root = ET.parse(folder + "/s.fcpxml").getroot()
        frame = Fraction(root.find("resources/format").get("frameDuration")[:-1])
        secs = lambda v: Fraction(v[:-1])
        out["fcpxml"] = [[int(secs(c.get("start")) / frame), int(secs(c.get("duration")) / frame)] for c in root.iter("asset-clip")]
        out["fcpxml_offsets_follow"] = all(secs(c.get("offset")) == secs(c.get("start")) for c in root.iter("asset-clip"))
        class Rows(HTMLParser):
            def __init__(self):
                super().__init__(); self.rows, self.cell, self.table = [], None, None
            def handle_starttag(self, tag, attrs):
                if tag == "table": self.table = dict(attrs).get("id")
                if tag == "tr" and self.table == "scenes": self.rows.append([])
                if tag == "td": self.cell = ""
            def handle_data(self, data):
                if self.cell is not None: self.cell += data
            def handle_endtag(self, tag):
                if tag == "td" and self.table == "scenes": self.rows[-1].append(self.cell)
                if tag == "td": self.cell = None
        p = Rows(); p.feed(open(folder + "/s.html").read())
        out["html"] = [[int(r[1]) - 1, int(r[7])] for r in p.rows if r]
        print(json.dumps(out))
        """

    @Test(arguments: ["cuts.mp4", "h264-2997fps.mp4"])
    func exportsReadBackAsTheCutList(clip: String) async throws {
        let scratch = try ScratchDirectory("vidfx-scene-exports")
        let listed = try await CLI.run(["scenes", CLI.media(clip), "--json", "-q", "--min-scene-len", "3"])
        let document = try #require(try JSONSerialization.jsonObject(with: listed.stdout) as? [String: Any])
        let scenes = (document["scenes"] as? [[String: Any]] ?? []).map { scene -> [Int] in
            let start = (scene["start"] as? [String: Any])?["frame"] as? Int ?? -1, end = (scene["end"] as? [String: Any])?["frame"] as? Int ?? -1
            return [start, end - start]
        }
        #expect(scenes.count >= 1)
        for format in ["otio", "edl", "fcpxml", "html"] {
            // The format from the name, and from --format for a name that says nothing.
            let byName = try await CLI.run(["scenes", CLI.media(clip), "-q", "--min-scene-len", "3", "-o", scratch.path("s.\(format)")])
            #expect(byName.status == 0, "\(byName.stderr)")
            let byOption = try await CLI.run(["scenes", CLI.media(clip), "-q", "--min-scene-len", "3", "--format", format])
            #expect(byOption.stdout == (try Data(contentsOf: URL(fileURLWithPath: scratch.path("s.\(format)")))), "\(format): -o and --format agree")
        }
        let probe = try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=r_frame_rate",
                                                                "-of", "csv=p=0", CLI.directory.appendingPathComponent(CLI.media(clip)).path])
        let parts = String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "/").compactMap { Double($0) }
        let rate = parts.count == 2 ? parts[0] / parts[1] : 30
        let read = try await Subprocess.output(Self.python, ["-c", Self.reader, scratch.url.path, "\(rate)"])
        let back = try #require(try JSONSerialization.jsonObject(with: read) as? [String: Any])
        for format in ["otio", "edl", "fcpxml", "html"] {
            #expect((back[format] as? [[Int]]) == scenes, "\(format): \(back[format] ?? "nothing") against \(scenes)")
        }
        #expect(back["fcpxml_offsets_follow"] as? Bool == true)
        #expect((back["otio_url"] as? String)?.hasPrefix("file:///") == true && (back["otio_url"] as? String)?.hasSuffix("/testmedia/\(clip)") == true,
                "\(back["otio_url"] ?? "")")
    }

    /// A name the page and the XML must not take as markup is escaped in both.
    @Test func namesAreEscaped() async throws {
        let scratch = try ScratchDirectory("vidfx-scene-exports")
        let clip = scratch.path("<b>&'cut\".mp4")
        try FileManager.default.copyItem(atPath: CLI.directory.appendingPathComponent(CLI.media("cuts.mp4")).path, toPath: clip)
        for format in ["html", "fcpxml"] {
            let r = try await CLI.run(["scenes", clip, "-q", "--format", format])
            #expect(r.status == 0, "\(r.stderr)")
            let text = String(decoding: r.stdout, as: UTF8.self)
            #expect(!text.contains("<b>") && text.contains("&lt;b&gt;&amp;"), "\(format)")
        }
        let xml = scratch.path("s.fcpxml")
        try (try await CLI.run(["scenes", clip, "-q", "--format", "fcpxml"])).stdout.write(to: URL(fileURLWithPath: xml))
        let parsed = try await Subprocess.outcome(URL(fileURLWithPath: Self.python), ["-c", "import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])", xml])
        #expect(parsed.status == 0, "\(parsed.stderrText)")
    }
}
