public import FrameCore

/// A 64-bit perceptual hash (pHash's construction): luma averaged down to 32×32, the
/// lowest 8×8 of its DCT, each coefficient against their median. Pictures that look
/// alike (recompressed, slightly moved, a frame apart in a still shot) differ in few bits.
public struct PerceptualHash: Sendable, Equatable {
    /// The 64 bits, row by row from the lowest frequency.
    public let bits: UInt64

    /// The hash of `picture` (any size).
    public init(_ picture: Frame) {
        let n = 32
        let (w, h, stride) = (picture.width, picture.height, picture.bytesPerRow)
        // Box averages over cells with whole-pixel bounds: every pixel counted once.
        var sums = [Int](repeating: 0, count: n * n), counts = [Int](repeating: 0, count: n * n)
        let cellX = (0..<w).map { $0 * n / max(1, w) }
        picture.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let p = raw.bindMemory(to: UInt8.self)
            for y in 0..<h {
                let cy = y * n / max(1, h), row = y * stride
                for x in 0..<w {
                    let o = row + 4 * x
                    let luma = (4899 * Int(p[o + 2]) + 9617 * Int(p[o + 1]) + 1868 * Int(p[o]) + 8192) >> 14
                    sums[cy * n + cellX[x]] += luma
                    counts[cy * n + cellX[x]] += 1
                }
            }
        }
        let plane = (0..<(n * n)).map { counts[$0] > 0 ? Float(sums[$0]) / Float(counts[$0]) : 0 }
        var bits: UInt64 = 0
        for (i, bit) in HashDetector.lowFrequencyBits(plane, side: n, size: 8).enumerated() where bit { bits |= 1 << UInt64(i) }
        self.bits = bits
    }

    /// How many of the 64 bits differ.
    public func distance(to other: PerceptualHash) -> Int { (bits ^ other.bits).nonzeroBitCount }
}
