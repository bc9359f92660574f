import Foundation
public import FrameCore

/// Follows a box drawn by hand from frame to frame, for a redaction review: the luma
/// inside the box on the frame it was drawn on is the template, and on each next frame
/// the box goes where the template matches best (normalised cross-correlation) within
/// half a box size of where it was. It is lost, and following stops, when the best match
/// scores under ``minimumScore`` (the face turned away, was covered, or left the frame).
///
/// Matching runs on luma scaled so that the template is at most 32 pixels across: the
/// search costs the same for a large face as for a small one. The template is not
/// updated, so the box does not drift onto the background over a long follow; a face
/// that changes a lot is lost instead, and the reviewer draws it again.
public struct BoxFollower: Sendable {
    /// The least correlation (−1…1) that keeps following.
    public let minimumScore: Double

    private let template: [Float]
    private let scale: Double
    private let size: (w: Int, h: Int)
    private var box: Rect

    /// A follower of `box` as it is in `frame`; nil when the box is too small (under 4
    /// pixels a side) or outside the frame.
    public init?(box: Rect, in frame: Frame, minimumScore: Double = 0.55) {
        guard box.x.isFinite, box.y.isFinite, box.width >= 4, box.height >= 4,
              box.x >= 0, box.y >= 0, box.x + box.width <= Double(frame.width), box.y + box.height <= Double(frame.height) else { return nil }
        self.minimumScore = minimumScore
        scale = min(1, 32 / max(box.width, box.height))
        size = (max(4, Int((box.width * scale).rounded())), max(4, Int((box.height * scale).rounded())))
        self.box = box
        guard let t = BoxFollower.sample(frame, x: box.x, y: box.y, box: box, scale: scale, size: size) else { return nil }
        template = BoxFollower.normalised(t)
    }

    /// The box on `frame`, the next frame (forwards or backwards) of the follow; nil once
    /// it is lost.
    public mutating func next(_ frame: Frame) -> Rect? {
        // Candidates within half a box size, every other scaled pixel, then every pixel
        // around the best of those: faces move less than half their size a frame.
        let step = 1 / scale
        let reach = Int((max(box.width, box.height) * scale / 2).rounded(.up))
        var best = (score: -2.0, x: box.x, y: box.y)
        func consider(_ x: Double, _ y: Double) {
            guard x >= 0, y >= 0, x + box.width <= Double(frame.width), y + box.height <= Double(frame.height),
                  let patch = BoxFollower.sample(frame, x: x, y: y, box: box, scale: scale, size: size) else { return }
            let score = BoxFollower.correlation(template, patch)
            if score > best.score { best = (score, x, y) }
        }
        for dy in stride(from: -reach, through: reach, by: 2) {
            for dx in stride(from: -reach, through: reach, by: 2) { consider(box.x + Double(dx) * step, box.y + Double(dy) * step) }
        }
        let (cx, cy) = (best.x, best.y)
        for dy in -1...1 {
            for dx in -1...1 where dx != 0 || dy != 0 { consider(cx + Double(dx) * step, cy + Double(dy) * step) }
        }
        guard best.score >= minimumScore else { return nil }
        box.x = best.x
        box.y = best.y
        return box
    }

    /// The luma of the box's size placed at (x, y), sampled to `size` (nearest pixel).
    private static func sample(_ frame: Frame, x: Double, y: Double, box: Rect, scale: Double, size: (w: Int, h: Int)) -> [Float]? {
        var out = [Float](repeating: 0, count: size.w * size.h)
        let (sx, sy) = (box.width / Double(size.w), box.height / Double(size.h))
        let ok = frame.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            for j in 0..<size.h {
                let py = min(frame.height - 1, Int(y + (Double(j) + 0.5) * sy))
                let row = base + py * frame.bytesPerRow
                for i in 0..<size.w {
                    let px = min(frame.width - 1, Int(x + (Double(i) + 0.5) * sx))
                    let p = row + 4 * px
                    out[j * size.w + i] = 0.114 * Float(p[0]) + 0.587 * Float(p[1]) + 0.299 * Float(p[2])
                }
            }
            return true
        }
        return ok ? out : nil
    }

    /// Zero mean, unit length (a flat patch stays all zeros).
    private static func normalised(_ v: [Float]) -> [Float] {
        let mean = v.reduce(0, +) / Float(v.count)
        let centred = v.map { $0 - mean }
        let length = centred.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return length > 1e-3 ? centred.map { $0 / length } : centred.map { _ in 0 }
    }

    private static func correlation(_ template: [Float], _ patch: [Float]) -> Double {
        let p = normalised(patch)
        var sum: Float = 0
        for i in template.indices { sum += template[i] * p[i] }
        return Double(sum)
    }
}
