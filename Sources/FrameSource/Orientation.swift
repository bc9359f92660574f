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
}
