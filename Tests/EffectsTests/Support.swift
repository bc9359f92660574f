import Effects
import Foundation
import FrameCore
import TestSupport

/// Deterministic test frames and reference helpers (spec §0 conventions, in Double).
enum Fixture {
    /// An opaque frame of random pixels (xorshift, fixed seed), plus primary ramps in the first rows.
    static func random(width: Int = 96, height: Int = 64, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> Frame {
        var frame = Frame(width: width, height: height)
        var state = seed
        let stride = frame.bytesPerRow / 4
        frame.withUnsafeMutableBytes { bytes in
            let p = bytes.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for y in 0..<height {
                for x in 0..<width {
                    state ^= state << 13; state ^= state >> 7; state ^= state << 17
                    var v = UInt32(truncatingIfNeeded: state) | 0xFF00_0000
                    if y < 3 {  // ramps of pure red, green, blue
                        let level = UInt32(x * 255 / max(width - 1, 1))
                        v = 0xFF00_0000 | level << (16 - 8 * UInt32(y))
                    }
                    p[y * stride + x] = v
                }
            }
        }
        return frame
    }

    /// Clear black where `clear(x)` holds, opaque white elsewhere: the edge where mixing
    /// straight (not premultiplied) colour shows as a grey fringe.
    static func clearAndWhite(width: Int, height: Int, clear: (Int) -> Bool) -> Frame {
        var frame = Frame(width: width, height: height)
        let stride = frame.bytesPerRow / 4
        frame.withUnsafeMutableBytes { bytes in
            let p = bytes.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for y in 0..<height { for x in 0..<width { p[y * stride + x] = clear(x) ? 0 : 0xFFFF_FFFF } }
        }
        return frame
    }

    /// Over a ``clearAndWhite(width:height:clear:)`` input: the darkest colour channel of any
    /// pixel that is not fully clear (255 when nothing greyed), and how many pixels are
    /// partly transparent.
    static func fringe(_ f: Frame) -> (darkest: UInt8, partial: Int) {
        var darkest: UInt8 = 255, partial = 0
        for y in 0..<f.height { for x in 0..<f.width {
            let p = f.pixel(x: x, y: y)
            if p.a > 0 { darkest = min(darkest, p.r, p.g, p.b) }
            if p.a > 0 && p.a < 255 { partial += 1 }
        } }
        return (darkest, partial)
    }

    static func rgb(_ f: Frame, _ x: Int, _ y: Int) -> (Double, Double, Double) {
        let p = f.pixel(x: x, y: y)
        return (Double(p.r), Double(p.g), Double(p.b))
    }

    /// Q(v) for a 0…1 value.
    static func q(_ v: Double) -> Int { min(max(Int((v * 255 + 0.5).rounded(.down)), 0), 255) }

    /// Largest channel difference between `frame` and `expected(x, y) -> (r, g, b)`; alpha must be kept.
    static func maxError(_ frame: Frame, source: Frame, _ expected: (Int, Int) -> (Int, Int, Int)) -> Int {
        var worst = 0
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let p = frame.pixel(x: x, y: y)
                let e = expected(x, y)
                worst = max(worst, abs(Int(p.r) - e.0), abs(Int(p.g) - e.1), abs(Int(p.b) - e.2))
                if p.a != source.pixel(x: x, y: y).a { worst = max(worst, 1000) }
            }
        }
        return worst
    }

    static func apply(_ chain: String, to frame: Frame, time: Double = 0, fuse: Bool = true) throws -> Frame {
        try EffectChain(parsing: chain, fuse: fuse).apply(to: frame, time: time)
    }

    /// Runs `ffmpeg` on the frame as raw BGRA and returns its raw BGRA output.
    /// `extraFrames` become further raw BGRA inputs; `outputSize` is the result's size
    /// when the filter changes it; `map` picks a labelled output of a complex graph.
    static func ffmpeg(_ frame: Frame, filter: String, complex: Bool = false, extraInputs: [String] = [], extraFrames: [Frame] = [],
                       outputSize: (Int, Int)? = nil, map: String? = nil) async throws -> Frame {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-fx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.bgra"), output = dir.appendingPathComponent("out.bgra")
        try Data(frame.packedBytes()).write(to: input)
        var inputs = extraInputs
        for (i, extra) in extraFrames.enumerated() {
            let path = dir.appendingPathComponent("extra\(i).bgra")
            try Data(extra.packedBytes()).write(to: path)
            inputs += ["-f", "rawvideo", "-pix_fmt", "bgra", "-s", "\(extra.width)x\(extra.height)", "-i", path.path]
        }
        do {
            _ = try await Subprocess.output("/usr/bin/env", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "bgra",
                                                       "-s", "\(frame.width)x\(frame.height)", "-i", input.path] + inputs
                + [complex ? "-filter_complex" : "-vf", filter] + (map.map { ["-map", $0] } ?? []) + ["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "bgra", output.path])
        } catch {
            throw OracleFailure(filter: filter)
        }
        let bytes = try [UInt8](Data(contentsOf: output))
        let (width, height) = outputSize ?? (frame.width, frame.height)
        var out = Frame(width: width, height: height)
        let rowBytes = width * 4, stride = out.bytesPerRow
        guard bytes.count >= rowBytes * height else { throw OracleFailure(filter: filter) }
        out.withUnsafeMutableBytes { b in
            for y in 0..<height {
                for i in 0..<rowBytes { b[y * stride + i] = bytes[y * rowBytes + i] }
            }
        }
        return out
    }

    struct OracleFailure: Error { var filter: String }

    /// Largest channel difference between two frames over `region` (default all).
    static func difference(_ a: Frame, _ b: Frame, inset: Int = 0) -> Int {
        var worst = 0
        for y in inset..<(a.height - inset) {
            for x in inset..<(a.width - inset) {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                worst = max(worst, abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)))
            }
        }
        return worst
    }

    static func sameBytes(_ a: Frame, _ b: Frame) -> Bool { a.packedBytes() == b.packedBytes() }
}

/// `geq3(E)` from the spec: the same expression per channel with ch( → r( / g( / b(.
func geq3(_ e: String) -> String {
    "format=gbrp,geq=r='\(e.replacingOccurrences(of: "ch(", with: "r("))':g='\(e.replacingOccurrences(of: "ch(", with: "g("))':b='\(e.replacingOccurrences(of: "ch(", with: "b("))':interpolation=nearest,format=bgra"
}
