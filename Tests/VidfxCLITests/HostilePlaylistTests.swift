import Foundation
import Testing
import TestSupport

/// A remote input must never make vidfx read local files or reach other protocols: an
/// HLS playlist served over HTTP (under any name, here `.mp4`, so that `apply` takes its
/// shared-download path) points its segments, init section, variant or key at `file:`,
/// `concat:`, `subfile:` and `data:` URIs. The local "secret" is a red clip; whatever
/// vidfx renders from such a playlist must hold none of its frames.
@Suite(.serialized, .timeLimit(.minutes(5))) struct HostilePlaylistRealClockTests {
    let server: MediaServer
    /// Local files the playlists point at: a 2 s red MPEG-TS clip and an AES key.
    let secrets: URL

    init() async throws {
        server = try await MediaServer()
        secrets = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: true)
        try await Self.ffmpeg(["-f", "lavfi", "-i", "color=red:s=320x240:r=30:d=2", "-f", "lavfi", "-i", "sine=d=2",
                         "-c:v", "libx264", "-c:a", "aac", "-f", "mpegts", secrets.appendingPathComponent("secret.ts").path])
        try FileManager.default.createDirectory(at: server.root.appendingPathComponent("evil"), withIntermediateDirectories: true)
        // A local playlist of local segments, for the variant route.
        try playlist(["file://\(secrets.path)/secret.ts"]).write(to: secrets.appendingPathComponent("local.m3u8"), atomically: true, encoding: .utf8)
        // The fMP4 rendition's init section, copied out of the server's reach.
        try FileManager.default.copyItem(at: server.root.appendingPathComponent("hls-fmp4/init.mp4"),
                                         to: secrets.appendingPathComponent("init.mp4"))
        // The clip as AES-128 segments whose key only the local file has.
        let key = secrets.appendingPathComponent("key.bin")
        try Data((0..<16).map { UInt8($0 * 7 + 3) }).write(to: key)
        let info = secrets.appendingPathComponent("key.info")
        try "file://\(key.path)\n\(key.path)\n".write(to: info, atomically: true, encoding: .utf8)
        let enc = server.root.appendingPathComponent("evil-aes")
        try FileManager.default.createDirectory(at: enc, withIntermediateDirectories: true)
        try await Self.ffmpeg(["-i", CLI.testmedia.appendingPathComponent("h264-30fps.mp4").path, "-c", "copy", "-f", "hls", "-hls_time", "1",
                         "-hls_playlist_type", "vod", "-hls_key_info_file", info.path, enc.appendingPathComponent("index.m3u8").path])
    }

    private static func ffmpeg(_ arguments: [String]) async throws {
        let r = try await Subprocess.run("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments)
        guard r.status == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    private func playlist(_ segments: [String], header: [String] = []) -> String {
        (["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"] + header
         + segments.flatMap { ["#EXTINF:1.000000,", $0] } + ["#EXT-X-ENDLIST", ""]).joined(separator: "\n")
    }

    /// Serves `body` as `evil/NAME.mp4` and returns its URL.
    private func serve(_ name: String, _ body: String) throws -> String {
        try body.write(to: server.root.appendingPathComponent("evil/\(name).mp4"), atomically: true, encoding: .utf8)
        return server.url("files/evil/\(name).mp4")
    }

    /// The hostile playlist for `route`, and how many frames a render of it may hold
    /// without having read anything it must not (the remote part alone).
    private func route(_ route: String) throws -> (url: String, allowed: Int) {
        let secret = "\(secrets.path)/secret.ts"
        let remote = server.url("files/hls/index0.ts")  // the clip's first second
        switch route {
        case "file-segment":
            return (try serve(route, playlist(["file://" + secret])), 0)
        case "init-section":
            let text = try String(contentsOf: server.root.appendingPathComponent("hls-fmp4/index.m3u8"), encoding: .utf8)
                .replacingOccurrences(of: "#EXT-X-MAP:URI=\"init.mp4\"", with: "#EXT-X-MAP:URI=\"file://\(secrets.path)/init.mp4\"")
                .split(separator: "\n").map { $0.hasSuffix(".m4s") ? server.url("files/hls-fmp4/" + $0) : String($0) }.joined(separator: "\n")
            #expect(text.contains("file://"), "the rendition has an init section to redirect")
            return (try serve(route, text), 0)
        case "local-variant":
            return (try serve(route, "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100000\nfile://\(secrets.path)/local.m3u8\n"), 0)
        case "mixed":
            return (try serve(route, playlist([remote, "file://" + secret, remote])), 62)
        case "key":
            let text = try String(contentsOf: server.root.appendingPathComponent("evil-aes/index.m3u8"), encoding: .utf8)
                .split(separator: "\n").map { $0.hasSuffix(".ts") ? server.url("files/evil-aes/" + $0) : String($0) }.joined(separator: "\n")
            #expect(text.contains("#EXT-X-KEY") && text.contains("file://"), "the playlist's key is a local file")
            return (try serve(route, text), 0)
        case "concat":
            return (try serve(route, playlist(["concat:\(secret)|\(secret)"])), 0)
        case "subfile":
            return (try serve(route, playlist(["subfile,,start,0,end,0,,:\(secret)"])), 0)
        case "data":
            let bytes = try Data(contentsOf: URL(fileURLWithPath: secret))
            return (try serve(route, playlist(["data:video/mp2t;base64," + bytes.base64EncodedString()])), 0)
        default:
            throw CocoaError(.featureUnsupported)
        }
    }

    /// A playlist that mixes allowed and refused segments renders the allowed ones and says
    /// what it left out: one warning per refused URI, naming it and why, a count at the end,
    /// and the count in `--progress json`. A segment the server does not have is named too.
    @Test func droppedSegmentsAreNamedOnceAndCounted() async throws {
        let secret = "file://\(secrets.path)/secret.ts"
        let remote = server.url("files/hls/index0.ts")
        let missing = server.url("files/hls/nowhere.ts")
        let url = try serve("named", playlist([remote, secret, remote, secret, missing, remote]))
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-named-\(UUID().uuidString).mkv")
        defer { try? FileManager.default.removeItem(at: out) }
        // FFmpeg 5.1's HLS demuxer leaks one AVIOContext (288 bytes and its buffers) on this
        // playlist, allocated while probing the first segment: the ffmpeg CLI leaks the same
        // block under valgrind (`ffmpeg -i …m3u8 -f null -`), so LeakSanitizer is off for this
        // one run, and only for leaks: every other check of the ASan build stays on.
        var environment = ProcessInfo.processInfo.environment
        environment["ASAN_OPTIONS"] = [environment["ASAN_OPTIONS"], "detect_leaks=0"].compactMap { $0 }.joined(separator: ":")
        let r = try await CLI.run(["apply", url, "-o", out.path, "--timeout", "5", "--progress", "json"], environment: environment)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        let named = lines.filter { $0.contains("skipped playlist segment \(secret)") }
        #expect(named.count == 1, "one warning for the refused URI, however often it is listed: \(r.stderr)")
        #expect(named.first?.contains("'file' protocol is not read from a remote input") == true, "\(r.stderr)")
        let lost = lines.filter { $0.contains("skipped playlist segment \(missing)") }
        #expect(lost.count == 1 && lost[0].contains("404"), "\(r.stderr)")
        #expect(lines.contains { $0.hasPrefix("vidfx: warning: \(url): 3 playlist segments skipped") }, "\(r.stderr)")
        let progress = lines.filter { $0.hasPrefix("{") }.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(progress?["skippedSegments"] as? Int == 3, "\(lines.filter { $0.hasPrefix("{") }.last ?? "no progress line")")
        let frames = Int((try await Probe(out.path)).video["nb_read_frames"] ?? "") ?? 0
        #expect(frames > 0 && frames <= 93, "the three allowed seconds, no more: \(frames)")
    }

    static let routes = ["file-segment", "init-section", "local-variant", "mixed", "key", "concat", "subfile", "data"]

    @Test(arguments: routes)
    func applyWithAudioReadsNoLocalFile(route name: String) async throws {
        let (url, allowed) = try route(name)
        for extra in [[], ["--no-audio"]] {
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-hostile-\(UUID().uuidString).mkv")
            defer { try? FileManager.default.removeItem(at: out) }
            let r = try await CLI.run(["apply", url, "-o", out.path, "-q", "--timeout", "5"] + extra)
            let frames = await FileManager.default.fileExists(atPath: out.path) ? Int((try? Probe(out.path))?.video["nb_read_frames"] ?? "0") ?? 0 : 0
            #expect(r.status != 0 || frames <= allowed, "\(name) \(extra): \(frames) frames rendered; \(r.stderr)")
            #expect(!r.stderr.contains("Cannot allocate memory"), "\(r.stderr)")
        }
    }

    @Test(arguments: routes)
    func dumpAndProbeReadNoLocalFile(route name: String) async throws {
        let (url, allowed) = try route(name)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-hostile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try await CLI.run(["dump", url, "-o", dir.path, "-q", "--timeout", "5"])
        let pngs = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).filter { $0.hasSuffix(".png") }
        #expect(r.status != 0 || pngs.count <= allowed, "\(name): \(pngs.count) frames dumped; \(r.stderr)")
        let probe = try await CLI.run(["probe", url, "--timeout", "5"])
        if allowed == 0 { #expect(probe.status != 0 || !String(decoding: probe.stdout, as: UTF8.self).contains("h264"), "\(name): \(probe.stderr)") }
    }
}
