extension Frame {
    /// Copies `tile` into this frame with its top-left corner at (`x`, `y`), clipped to
    /// this frame: contact sheets, storyboards and the studio's timeline strip.
    public mutating func place(_ tile: Frame, x: Int, y: Int) {
        let columns = min(tile.width, width - x), rows = min(tile.height, height - y)
        guard x >= 0, y >= 0, columns > 0, rows > 0 else { return }
        let (dstStride, srcStride, rowBytes) = (bytesPerRow, tile.bytesPerRow, columns * 4)
        tile.withUnsafeBytes { src in
            withUnsafeMutableBytes { dst in
                for row in 0..<rows {
                    (dst.baseAddress! + (y + row) * dstStride + x * 4).copyMemory(from: src.baseAddress! + row * srcStride, byteCount: rowBytes)
                }
            }
        }
    }
}
