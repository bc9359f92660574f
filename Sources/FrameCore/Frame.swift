/// One picture in BGRA8 (bytes B, G, R, A per pixel, straight alpha), with the
/// time it is shown.
///
/// Rows are `bytesPerRow` apart (a multiple of ``FramePool/alignment``); the bytes
/// past `width * 4` in a row are padding. A `Frame` is a value: copies share the
/// buffer until one of them writes, which copies it first.
public struct Frame: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Distance between the starts of two rows, in bytes.
    public let bytesPerRow: Int
    /// Index of the cadence tick that shows this frame (0 for the first).
    public var tick: Int64
    /// When the tick is shown, in seconds from the start of output: exactly `tick / fps`.
    public var time: Rational
    /// Presentation time of the source picture, in seconds on the source's own
    /// timeline (its first frame at 0).
    public var sourceTime: Rational
    /// Which pass through the clip this frame belongs to when looping (0 for the first).
    /// Where each pass begins on the output timeline is the input's to say
    /// (`MediaInput.passes`), which the audio follows.
    public var pass: Int
    /// What a detector found in this frame (codes, faces), for the effects that draw or
    /// redact them; empty unless detection ran.
    public var observations: [Observation] = []

    var buffer: FrameBuffer

    /// A frame of the given size with unspecified contents, taking its buffer from
    /// `pool` when one is given.
    public init(width: Int, height: Int, pool: FramePool? = nil) {
        precondition(width > 0 && height > 0, "frame size must be positive")
        self.width = width
        self.height = height
        self.bytesPerRow = Frame.alignedRowBytes(width: width)
        let count = bytesPerRow * height
        self.buffer = pool?.take(byteCount: count) ?? FrameBuffer(byteCount: count)
        self.tick = 0
        self.time = Rational(0)
        self.sourceTime = Rational(0)
        self.pass = 0
    }

    /// Row stride used for a width: `width * 4` rounded up to the pool alignment.
    public static func alignedRowBytes(width: Int) -> Int {
        let a = FramePool.alignment
        return (width * 4 + a - 1) / a * a
    }

    /// Calls `body` with the frame's bytes (`bytesPerRow * height` of them).
    @discardableResult
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: buffer.bytes, count: buffer.count))
    }

    /// Calls `body` with writable bytes, copying the buffer first if another frame shares it.
    @discardableResult
    public mutating func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        if !isKnownUniquelyReferenced(&buffer) {
            let copy = FrameBuffer(byteCount: buffer.count)
            copy.bytes.copyMemory(from: buffer.bytes, byteCount: buffer.count)
            buffer = copy
        }
        return try body(UnsafeMutableRawBufferPointer(start: buffer.bytes, count: buffer.count))
    }

    /// True when no other frame shares this frame's pixels, so writing to them in
    /// place (``withUnsafeMutableBytes(_:)``) costs no copy.
    public mutating func isUniquelyReferenced() -> Bool { isKnownUniquelyReferenced(&buffer) }

    /// True when both frames show the very same buffer (a repeated source picture).
    public func sharesPixels(with other: Frame) -> Bool { buffer === other.buffer }

    /// The pixel at (`x`, `y`) as (b, g, r, a). For tests and tools, not for loops.
    public func pixel(x: Int, y: Int) -> (b: UInt8, g: UInt8, r: UInt8, a: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
        let p = buffer.bytes.advanced(by: y * bytesPerRow + x * 4).assumingMemoryBound(to: UInt8.self)
        return (p[0], p[1], p[2], p[3])
    }

    /// The pixels packed row after row without padding (`width * 4 * height` bytes),
    /// the layout of raw BGRA files and pipes.
    public func packedBytes() -> [UInt8] {
        let rowBytes = width * 4
        return [UInt8](unsafeUninitializedCapacity: rowBytes * height) { out, count in
            for y in 0..<height {
                let src = buffer.bytes.advanced(by: y * bytesPerRow)
                UnsafeMutableRawPointer(out.baseAddress!.advanced(by: y * rowBytes)).copyMemory(from: src, byteCount: rowBytes)
            }
            count = rowBytes * height
        }
    }
}
