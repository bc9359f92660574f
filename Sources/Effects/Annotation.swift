import FrameCore

/// Drawing for the detection overlays, one row band at a time: layer effects render
/// disjoint row ranges on many threads, so every primitive writes only rows in `rows`.
enum Annotation {
    /// A colour parameter (r, g, b, a in 0…1) as an opaque BGRA pixel.
    static func pixel(_ rgba: [Double]) -> UInt32 {
        func byte(_ v: Double) -> UInt32 { UInt32(max(0, min(255, (v * 255).rounded()))) }
        return byte(rgba[2]) | byte(rgba[1]) << 8 | byte(rgba[0]) << 16 | 0xFF00_0000
    }

    /// Copies the source rows `rows` to the destination unchanged.
    static func copy(_ src: SourceImage, into dst: UnsafeMutablePointer<UInt32>, stride: Int, rows: Range<Int>) {
        for y in rows { (dst + y * stride).update(from: src.row(y), count: src.width) }
    }

    /// A line from `a` to `b`, `thickness` pixels wide, clipped to the frame and `rows`.
    static func line(_ a: Point, _ b: Point, thickness: Double, color: UInt32, into dst: UnsafeMutablePointer<UInt32>,
                     stride: Int, width: Int, height: Int, rows: Range<Int>) {
        let half = max(0.5, thickness / 2)
        // Boxes carried along a track's motion can leave the frame, and a coordinate can
        // be anything a detector said: clip in floating point, before any Int.
        guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite, half.isFinite else { return }
        guard max(a.x, b.x) + half >= 0, min(a.x, b.x) - half <= Double(width),
              max(a.y, b.y) + half >= Double(rows.lowerBound), min(a.y, b.y) - half <= Double(rows.upperBound) else { return }
        let top = max(rows.lowerBound, Int((min(a.y, b.y) - half).rounded(.down)))
        let bottom = min(rows.upperBound, min(height, Int((max(a.y, b.y) + half).rounded(.up)) + 1))
        guard top < bottom else { return }
        let left = max(0, Int((min(a.x, b.x) - half).rounded(.down)))
        let right = min(width, Int((max(a.x, b.x) + half).rounded(.up)) + 1)
        guard left < right else { return }
        let (dx, dy) = (b.x - a.x, b.y - a.y)
        let length2 = dx * dx + dy * dy
        for y in top..<bottom {
            let py = Double(y) + 0.5
            for x in left..<right {
                let px = Double(x) + 0.5
                // Distance from the pixel centre to the segment.
                let t = length2 > 0 ? max(0, min(1, ((px - a.x) * dx + (py - a.y) * dy) / length2)) : 0
                let (ex, ey) = (a.x + t * dx - px, a.y + t * dy - py)
                if ex * ex + ey * ey <= half * half { dst[y * stride + x] = color }
            }
        }
    }

    /// The closed outline through `points`.
    static func outline(_ points: [Point], thickness: Double, color: UInt32, into dst: UnsafeMutablePointer<UInt32>,
                        stride: Int, width: Int, height: Int, rows: Range<Int>) {
        for (i, p) in points.enumerated() {
            line(p, points[(i + 1) % points.count], thickness: thickness, color: color, into: dst,
                 stride: stride, width: width, height: height, rows: rows)
        }
    }

    /// A rectangle's four corners, clockwise from the top-left.
    static func corners(_ r: Rect) -> [Point] {
        [Point(x: r.x, y: r.y), Point(x: r.x + r.width, y: r.y), Point(x: r.x + r.width, y: r.y + r.height), Point(x: r.x, y: r.y + r.height)]
    }

    /// A caption of `text` with its top-left at (`x`, `y`), kept inside the frame.
    static func caption(_ text: String, x: Double, y: Double, scale: Int, color: UInt32, background: UInt32,
                        into dst: UnsafeMutablePointer<UInt32>, stride: Int, width: Int, height: Int, rows: Range<Int>) {
        let w = text.count * Caption.advance(scale: scale), h = Caption.lineHeight(scale: scale)
        guard x.isFinite, y.isFinite else { return }
        let cx = max(scale, min(width - w - scale, Int(max(-1e6, min(1e6, x)))))
        let cy = max(scale, min(height - h - scale, Int(max(-1e6, min(1e6, y)))))
        Caption.draw(text, into: dst, stride: stride, width: width, height: height, x: cx, y: cy, scale: scale,
                     color: color, background: background, rows: rows)
    }
}
