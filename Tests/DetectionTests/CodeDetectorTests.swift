import Detection
import Foundation
import FrameCore
import FrameSource
import TestSupport
import Testing

enum Media {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("testmedia")
    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Every cadence frame of a clip (30 fps).
    static func frames(_ name: String) throws -> [Frame] {
        let source = try FrameSource(path(name))
        defer { source.close() }
        var frames: [Frame] = []
        while let f = try source.nextFrame() { frames.append(f) }
        return frames
    }
}

/// zbar behind the Detector protocol, on codes composited onto a real photograph
/// (testmedia/make-testmedia.sh says how each clip was made and where its code is).
@Suite struct CodeDetectorTests {
    static let url = "https://vidfx.example/menu?table=12"

    /// Where qr-moving.mp4's code corners are at time t: a 116 px square turned by
    /// (-20 + 20 t)° (clockwise) about its centre (150 + 120 t + 107, 167).
    static func placedCorners(at t: Double) -> [Point] {
        let a = (-20 + 20 * t) * .pi / 180
        let (cx, cy) = (150 + 120 * t + 107, 60.0 + 107)
        return [(-58.0, -58.0), (58, -58), (58, 58), (-58, 58)].map { (x, y) in
            Point(x: cx + x * cos(a) - y * sin(a), y: cy + x * sin(a) + y * cos(a))
        }
    }

    @Test func aTurningMovingQRCodeIsReadWithItsCornersInReadingOrder() throws {
        let detector = CodeDetector()
        let frames = try Media.frames("qr-moving.mp4")
        #expect(frames.count == 60)
        var read = 0
        for frame in frames {
            let found = try detector.detect(frame)
            #expect(found.count <= 1, "tick \(frame.tick): \(found)")
            guard let qr = found.first else { continue }
            read += 1
            #expect(qr.kind == .qr && qr.payload == Self.url)
            let placed = Self.placedCorners(at: frame.time.seconds)
            for (got, want) in zip(qr.corners, placed) {
                #expect(hypot(got.x - want.x, got.y - want.y) <= 3, "tick \(frame.tick): \(qr.corners) vs \(placed)")
            }
            #expect(qr.bounds == Rect(enclosing: qr.corners))
        }
        #expect(Double(read) >= 0.95 * Double(frames.count), "read on \(read) of \(frames.count) ticks")
    }

    /// qr-perspective.mp4's code corners: the code's square on the canvas, sent through the
    /// homography that takes the canvas corners to where the perspective filter put them.
    static func perspectiveCorners() -> [Point] {
        let canvas = [(0.0, 0.0), (640, 0), (0, 360), (640, 360)], placed = [(230.0, 0.0), (420, 40), (0, 360), (640, 330)]
        // Solve for h (8 unknowns, h33 = 1): u = (h1 x + h2 y + h3) / (h7 x + h8 y + 1), v likewise.
        var m: [[Double]] = []
        for ((x, y), (u, v)) in zip(canvas, placed) {
            m.append([x, y, 1, 0, 0, 0, -u * x, -u * y, u])
            m.append([0, 0, 0, x, y, 1, -v * x, -v * y, v])
        }
        for c in 0..<8 {  // Gauss-Jordan with partial pivoting
            let p = (c..<8).max { abs(m[$0][c]) < abs(m[$1][c]) }!
            m.swapAt(c, p)
            for r in 0..<8 where r != c {
                let f = m[r][c] / m[c][c]
                for k in c..<9 { m[r][k] -= f * m[c][k] }
            }
        }
        let h = (0..<8).map { m[$0][8] / m[$0][$0] }
        return [(262.0, 122.0), (378, 122), (378, 238), (262, 238)].map { (x, y) in
            let w = h[6] * x + h[7] * y + 1
            return Point(x: (h[0] * x + h[1] * y + h[2]) / w, y: (h[3] * x + h[4] * y + h[5]) / w)
        }
    }

    @Test func aQRCodeInPerspectiveIsReadWithItsCorners() throws {
        let detector = CodeDetector()
        let frames = try Media.frames("qr-perspective.mp4")
        #expect(frames.count == 30)
        let placed = Self.perspectiveCorners()
        var read = 0
        for frame in frames {
            guard let qr = try detector.detect(frame).first else { continue }
            read += 1
            #expect(qr.kind == .qr && qr.payload == Self.url)
            for (got, want) in zip(qr.corners, placed) {
                #expect(hypot(got.x - want.x, got.y - want.y) <= 3, "tick \(frame.tick): \(qr.corners) vs \(placed)")
            }
        }
        #expect(Double(read) >= 0.95 * Double(frames.count), "read on \(read) of \(frames.count) ticks")
    }

    @Test func whatZbarimgReadsWeReadToo() async throws {
        // The oracle: zbarimg on the same frames (PNG, as vidfx decodes them).
        let detector = CodeDetector()
        let frames = try Media.frames("qr-moving.mp4")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-zbar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-v", "error", "-i", Media.path("qr-moving.mp4"), "-vf", "fps=30",
                                                   dir.appendingPathComponent("f%03d.png").path])
        var oracle = 0, ours = 0, disagreements: [Int] = []
        for (k, frame) in frames.enumerated() {
            let png = dir.appendingPathComponent(String(format: "f%03d.png", k + 1)).path
            let (status, output) = try await Subprocess.run("/usr/bin/env", ["zbarimg", "-q", "--raw", png])
            let theirs = status == 0 && String(decoding: output, as: UTF8.self).contains(Self.url)
            let mine = try detector.detect(frame).contains { $0.payload == Self.url }
            if theirs { oracle += 1 }
            if mine { ours += 1 }
            if theirs && !mine { disagreements.append(k) }
        }
        #expect(disagreements.isEmpty, "zbarimg reads ticks \(disagreements) that vidfx misses")
        #expect(ours >= oracle)
    }

    @Test func aSlidingEAN13IsReadOnEveryTick() throws {
        let detector = CodeDetector(symbologies: .barcodes)
        let frames = try Media.frames("ean13-moving.mp4")
        let read = try frames.filter { try detector.detect($0).contains { $0.kind == .ean13 && $0.payload == "4006381333931" } }
        #expect(Double(read.count) >= 0.95 * Double(frames.count))
        // A barcode's corners are a rectangle in reading order: left to right, top to bottom.
        let first = try #require(try detector.detect(frames[0]).first)
        #expect(first.corners[0].x < first.corners[1].x && first.corners[1].y < first.corners[2].y && first.corners[3].x < first.corners[2].x)
        // It slides 2 px a tick: 60 px/s.
        let last = try #require(try detector.detect(frames[59]).first)
        #expect(abs((last.bounds.x - first.bounds.x) - 60.0 * 59 / 30) <= 3)
    }

    @Test func onlyWhatWasAskedForIsFound() throws {
        let frame = try #require(try Media.frames("ean13-moving.mp4").first)
        #expect(try CodeDetector(symbologies: .qr).detect(frame).isEmpty)
        let qr = try #require(try Media.frames("qr-moving.mp4").first)
        #expect(try CodeDetector(symbologies: .barcodes).detect(qr).isEmpty)
    }

    @Test func footageWithoutCodesGivesNothing() throws {
        let detector = CodeDetector()
        for frame in try Media.frames("no-codes.mp4") {
            #expect(try detector.detect(frame).isEmpty, "tick \(frame.tick)")
        }
    }

    @Test func binaryPayloadsComeBackAsTheirBytes() throws {
        let frame = try #require(try Media.frames("qr-binary.png").first)
        let qr = try #require(try CodeDetector().detect(frame).first)
        #expect(qr.payload == nil)
        #expect(qr.payloadBase64.flatMap { Data(base64Encoded: $0) } == Data("vidfx\u{0}".utf8) + Data([0xFF, 0xFE]) + Data("binary\u{1}\u{2}".utf8))
    }

    @Test func threeKilobytesOfTextAreReadWhole() throws {
        let frame = try #require(try Media.frames("qr-3kb.png").first)
        let qr = try #require(try CodeDetector().detect(frame).first)
        #expect(qr.payload == String(String(repeating: "vidfx ", count: 500).prefix(2900)))
    }

    @Test func aLargeFrameIsScannedSmallerAndCornersScaledBack() throws {
        // The same frame at twice the size, scanned at its original size.
        let small = try #require(try Media.frames("qr-moving.mp4").first)
        let (w, h) = (small.width * 2, small.height * 2)
        var big = Frame(width: w, height: h)
        let (bigStride, smallStride) = (big.bytesPerRow / 4, small.bytesPerRow / 4)
        small.withUnsafeBytes { s in
            big.withUnsafeMutableBytes { d in
                let src = s.baseAddress!.assumingMemoryBound(to: UInt32.self), dst = d.baseAddress!.assumingMemoryBound(to: UInt32.self)
                for y in 0..<h { for x in 0..<w { dst[y * bigStride + x] = src[(y / 2) * smallStride + x / 2] } }
            }
        }
        let a = try #require(try CodeDetector().detect(small).first)
        let b = try #require(try CodeDetector(largestScan: 640).detect(big).first)
        for (p, q) in zip(a.corners, b.corners) { #expect(hypot(p.x * 2 - q.x, p.y * 2 - q.y) <= 3) }
    }
}
