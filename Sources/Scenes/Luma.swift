import FrameCore

/// A picture's luma as OpenCV computes it for BGR→gray and BGR→YUV at 8 bits:
/// (4899·R + 9617·G + 1868·B) / 2¹⁴, rounded.
func lumaPlane(_ picture: Frame) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: picture.width * picture.height)
    out.withUnsafeMutableBufferPointer { y in
        picture.forEachPixel { b, g, r, i in
            y[i] = UInt8((4899 * r + 9617 * g + 1868 * b + 8192) >> 14)
        }
    }
    return out
}

/// Shrinks a plane by averaging the area each output pixel covers (partial pixels
/// weighted by how much of them it covers), as OpenCV's INTER_AREA does.
func areaResize(_ plane: [UInt8], width: Int, height: Int, to ow: Int, _ oh: Int) -> [Float] {
    func spans(_ n: Int, _ m: Int) -> [[(Int, Double)]] {
        let scale = Double(n) / Double(m)
        return (0..<m).map { o in
            let start = Double(o) * scale, end = Double(o + 1) * scale
            var taps: [(Int, Double)] = []
            var i = Int(start)
            while Double(i) < end && i < n {
                let w = min(end, Double(i + 1)) - max(start, Double(i))
                if w > 1e-9 { taps.append((i, w / scale)) }
                i += 1
            }
            return taps
        }
    }
    let xs = spans(width, ow), ys = spans(height, oh)
    var out = [Float](repeating: 0, count: ow * oh)
    for oy in 0..<oh {
        for ox in 0..<ow {
            var sum = 0.0
            for (y, wy) in ys[oy] {
                for (x, wx) in xs[ox] { sum += Double(plane[y * width + x]) * wy * wx }
            }
            out[oy * ow + ox] = Float(sum)
        }
    }
    return out
}
