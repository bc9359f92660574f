import Dispatch
public import FrameCore

/// Resizes BGRA frames for views that have their own size (a terminal's cells, a
/// y4m stream's `--size`). Each output pixel is the mean of the source pixels it
/// covers, which is what a strong downscale (1080p → 200 columns) needs to stay
/// free of aliasing; upscales repeat pixels. Rows run on all cores.
public enum FrameScaler {
    /// The largest size of aspect `width`:`height` (square pixels) inside `box`.
    public static func fit(width: Int, height: Int, into box: (width: Int, height: Int)) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (max(1, box.width), max(1, box.height)) }
        if box.width * height <= box.height * width {
            return (max(1, box.width), max(1, box.width * height / width))
        }
        return (max(1, box.height * width / height), max(1, box.height))
    }

    /// `frame` resized to exactly `width`×`height` (the caller chooses the aspect).
    /// Returns the frame itself when the size already matches.
    public static func resize(_ frame: Frame, width: Int, height: Int, pool: FramePool? = nil) -> Frame {
        if frame.width == width && frame.height == height { return frame }
        var out = Frame(width: width, height: height, pool: pool)
        out.tick = frame.tick
        out.time = frame.time
        out.sourceTime = frame.sourceTime
        out.pass = frame.pass
        let (sx, sy) = (Double(width) / Double(frame.width), Double(height) / Double(frame.height))
        out.observations = frame.observations.map { $0.scaled(x: sx, y: sy) }
        let sw = frame.width, sh = frame.height, sStride = frame.bytesPerRow / 4, dStride = out.bytesPerRow / 4
        // Column spans are the same for every row: compute them once.
        let x0 = (0..<width).map { $0 * sw / width }
        let x1 = (0..<width).map { max($0 * sw / width + 1, ($0 + 1) * sw / width) }
        frame.withUnsafeBytes { s in
            out.withUnsafeMutableBytes { d in
                let sBase = UInt(bitPattern: s.baseAddress!), dBase = UInt(bitPattern: d.baseAddress!)
                let bands = min(height, 16)
                DispatchQueue.concurrentPerform(iterations: bands) { band in
                    let src = UnsafePointer<UInt32>(bitPattern: sBase)!, dst = UnsafeMutablePointer<UInt32>(bitPattern: dBase)!
                    for y in (band * height / bands)..<((band + 1) * height / bands) {
                        let y0 = y * sh / height, y1 = max(y0 + 1, (y + 1) * sh / height)
                        for x in 0..<width {
                            var b = 0, g = 0, r = 0, a = 0
                            for sy in y0..<y1 {
                                let row = src + sy * sStride
                                for sx in x0[x]..<x1[x] {
                                    let v = row[sx]
                                    b += Int(v & 0xFF); g += Int(v >> 8 & 0xFF); r += Int(v >> 16 & 0xFF); a += Int(v >> 24)
                                }
                            }
                            let n = (y1 - y0) * (x1[x] - x0[x]), half = n / 2
                            dst[y * dStride + x] = UInt32((a + half) / n) << 24 | UInt32((r + half) / n) << 16
                                | UInt32((g + half) / n) << 8 | UInt32((b + half) / n)
                        }
                    }
                }
            }
        }
        return out
    }
}
