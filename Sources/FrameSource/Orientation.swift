import CPixelKernels

/// How stored pixels map to displayed pixels: a multiple of 90° plus an optional
/// horizontal mirror, read from the container's display matrix.
struct Orientation: Equatable, Sendable {
    /// Clockwise rotation applied after mirroring, in degrees: 0, 90, 180 or 270.
    var rotation: Int
    /// Mirror left-right before rotating.
    var mirrored: Bool

    static let upright = Orientation(rotation: 0, mirrored: false)

    var swapsAxes: Bool { rotation == 90 || rotation == 270 }

    init(rotation: Int, mirrored: Bool) {
        self.rotation = ((rotation % 360) + 360) % 360
        self.mirrored = mirrored
    }

    /// Reads the 3×3 display matrix (16.16 fixed point, row-major [a b u; c d v; x y w],
    /// mapping stored (x, y) to displayed (a·x + c·y, b·x + d·y)). Matrices that are
    /// not a right-angle rotation or mirror are taken as upright.
    init(displayMatrix m: UnsafePointer<Int32>?) {
        guard let m else { self = .upright; return }
        func sign(_ v: Int32) -> Int { v > 0x8000 ? 1 : (v < -0x8000 ? -1 : 0) }
        let a = sign(m[0]), b = sign(m[1]), c = sign(m[3]), d = sign(m[4])
        // Displayed axes in y-down image coordinates. The matrix columns say where
        // the stored x and y axes go; each of the 8 cases is one orientation.
        switch (a, b, c, d) {
        case (1, 0, 0, 1): self.init(rotation: 0, mirrored: false)
        case (0, 1, -1, 0): self.init(rotation: 90, mirrored: false)
        case (-1, 0, 0, -1): self.init(rotation: 180, mirrored: false)
        case (0, -1, 1, 0): self.init(rotation: 270, mirrored: false)
        case (-1, 0, 0, 1): self.init(rotation: 0, mirrored: true)
        case (0, -1, -1, 0): self.init(rotation: 90, mirrored: true)
        case (1, 0, 0, -1): self.init(rotation: 180, mirrored: true)
        case (0, 1, 1, 0): self.init(rotation: 270, mirrored: true)
        default: self = .upright
        }
    }

    /// The mirror and rotation of a `W`×`H` stored picture as the stored pixel each output
    /// pixel shows: affine in (X, Y), so a walk only adds steps.
    func walk(width W: Int, height H: Int) -> vfx_walk {
        let m = mirrored
        // Stored (x, y) shown at output (X, Y): the display matrix above, inverted.
        func source(_ X: Int, _ Y: Int) -> (Int, Int) {
            let (xm, y): (Int, Int)
            switch rotation {
            case 90: (xm, y) = (Y, H - 1 - X)
            case 180: (xm, y) = (W - 1 - X, H - 1 - Y)
            case 270: (xm, y) = (W - 1 - Y, X)
            default: (xm, y) = (X, Y)
            }
            return (m ? W - 1 - xm : xm, y)
        }
        let (x0, y0) = source(0, 0), (x1, y1) = source(1, 0), (x2, y2) = source(0, 1)
        let (ow, oh) = swapsAxes ? (H, W) : (W, H)
        return vfx_walk(x0: x0, y0: y0, xx: x1 - x0, xy: y1 - y0, yx: x2 - x0, yy: y2 - y0, out_width: ow, out_height: oh)
    }
}
