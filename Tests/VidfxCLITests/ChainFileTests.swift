import Foundation
import Testing

/// `-e @FILE`: a chain in a file, with comments, keyframes and ranges, renders exactly as
/// the same chain on the command line.
@Suite struct ChainFileTests {
    @Test func aChainFileRendersAsTheSameChainGivenInline() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-chain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("grade.chain")
        try """
        # A slow grade: sepia fades in, then a mosaic for a second.
        sepia:amount=0@0,1@2s     # fade in over two seconds

        pixelate:size=4@1,24@2:ease=inout:enable=0:01-0:02
        """.write(to: file, atomically: true, encoding: .utf8)
        let fromFile = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "-e", "@" + file.path, "--format", "bgra", "-o", "-", "-q"])
        let inline = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "-e", "sepia:amount=0@0,1@2s,pixelate:size=4@1,24@2:ease=inout:enable=0:01-0:02",
                                  "--format", "bgra", "-o", "-", "-q"])
        #expect(fromFile.status == 0 && inline.status == 0, "\(fromFile.stderr) \(inline.stderr)")
        #expect(fromFile.stdout.count == 90 * 320 * 240 * 4)
        #expect(fromFile.stdout == inline.stdout)
        // And the keyframes are there: tick 0 (no sepia yet) differs from tick 60.
        let frame = 320 * 240 * 4
        #expect(fromFile.stdout[0..<frame] != fromFile.stdout[(60 * frame)..<(61 * frame)])
    }

    /// A `#` is a comment only at the start of a line or after a space: a colour and a
    /// shader's `FILE#NAME` in a chain file are what they are on the command line.
    @Test func colorsAndShaderFunctionsAreNotComments() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-chain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("looks.chain")
        let chain = "./shaders/article.metal#pixelate:pixelSize=8,vignette,text:text=hi:color=#ff8800"
        try """
        # the article's pixelate, then a vignette and an orange caption
        ./shaders/article.metal#pixelate:pixelSize=8   # a shader's function
        vignette
        text:text=hi:color=#ff8800 # a colour
        """.write(to: file, atomically: true, encoding: .utf8)
        let fromFile = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "1", "-e", "@" + file.path, "--format", "bgra", "-o", "-", "-q"])
        let inline = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "1", "-e", chain, "--format", "bgra", "-o", "-", "-q"])
        #expect(fromFile.status == 0 && inline.status == 0, "\(fromFile.stderr) \(inline.stderr)")
        #expect(fromFile.stdout.count == 320 * 240 * 4 && fromFile.stdout == inline.stdout)
    }

    @Test(arguments: [
        ("@/nonexistent.chain", "-e: @/nonexistent.chain: cannot read the chain file"),
        ("sepia:amount=0@0,1@soon", "-e: sepia: amount: 'soon' is not a time"),
    ])
    func badChainsAreOneLine(chain: String, message: String) async throws {
        let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "-e", chain, "--format", "bgra", "-o", "-"])
        #expect(r.status == 2)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(message), "\(r.stderr)")
    }
}
