import ArgumentParser
import FrameCore

/// What `storyboard` and `sheet` share: a part of the timeline, a CxR grid, and
/// pictures placed into a larger one.
struct ClipRangeOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Start at this time in the input (seconds or h:m:s).")
    var start: TimeArgument?

    @Option(parsing: .unconditional, help: "Cover this many seconds from the start point.")
    var duration: TimeArgument?
}

enum Tiles {
    /// "CxR" with each side in 1…`limit`, or nil.
    static func grid(_ text: String, limit: Int) -> (columns: Int, rows: Int)? {
        let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, (1...limit).contains(parts[0]), (1...limit).contains(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }

    /// Copies `tile` into `sheet` with its top-left corner at (`x`, `y`); it must fit.
    static func place(_ tile: Frame, into sheet: inout Frame, x: Int, y: Int) {
        sheet.place(tile, x: x, y: y)
    }

    /// The top `height` rows of `frame`.
    static func topRows(_ frame: Frame, height: Int) -> Frame {
        var out = Frame(width: frame.width, height: height)
        let (dstStride, srcStride, rowBytes) = (out.bytesPerRow, frame.bytesPerRow, frame.width * 4)
        frame.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                for row in 0..<height { (dst.baseAddress! + row * dstStride).copyMemory(from: src.baseAddress! + row * srcStride, byteCount: rowBytes) }
            }
        }
        return out
    }
}
