import Foundation
import Testing
import TestSupport

/// Audio packets whose bytes are garbage: apply keeps going, as it does for damaged
/// video, and copies none of them into the output.
@Suite struct DamagedAudioTests {
    /// The 3 s clip's audio packets 40…69 overwritten with noise (positions from ffprobe);
    /// the noise is a fixed xorshift sequence, so every run damages them alike.
    static func damagedClip(in dir: URL) async throws -> URL {
        let source = CLI.testmedia.appendingPathComponent("h264-30fps.mp4")
        let json = try await Subprocess.output("/usr/bin/env", ["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "packet=pos,size",
                                                          "-of", "json", source.path])
        let packets = (try JSONSerialization.jsonObject(with: json) as? [String: Any])?["packets"] as? [[String: Any]] ?? []
        #expect(packets.count > 70)
        var bytes = [UInt8](try Data(contentsOf: source))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for p in packets[40..<70] {
            guard let pos = Int(p["pos"] as? String ?? ""), let size = Int(p["size"] as? String ?? "") else { continue }
            for i in pos..<(pos + size) {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                bytes[i] = UInt8(truncatingIfNeeded: state)
            }
        }
        let out = dir.appendingPathComponent("damaged-audio.mp4")
        try Data(bytes).write(to: out)
        return out
    }

    /// ffmpeg's complaints decoding `path`'s audio (empty when it is clean).
    static func audioErrors(_ path: String) async throws -> String {
        String(decoding: try await CLIProcess.shell("ffmpeg -nostdin -v error -i \"$1\" -map 0:a -f null - 2>&1", [path]).stdout, as: UTF8.self)
    }

    @Test(arguments: [["-o", "out.mp4"], ["-o", "out.mkv"], ["-o", "out.webm"], ["-o", "out.mp4", "--start", "0.5"]])
    func damagedAudioIsSkippedNotCopied(arguments: [String]) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-badaudio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try await Self.damagedClip(in: dir)
        #expect(!(try await Self.audioErrors(input.path)).isEmpty, "the input's audio really is damaged")
        let out = dir.appendingPathComponent(arguments[1]).path
        let r = try await CLI.run(["apply", input.path] + [arguments[0], out] + arguments.dropFirst(2))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await Self.audioErrors(out).isEmpty, "the output's audio decodes cleanly")
        let probe = try await Probe(out)
        #expect(probe.audio["codec_name"] != nil, "audio kept")
        try await CLIProcess.expectInSync(out)
        if arguments[1] != "out.webm" && arguments.count == 2 {
            #expect(r.stderr.contains("dropped 30 damaged packets"), "\(r.stderr)")
        }
    }
}
