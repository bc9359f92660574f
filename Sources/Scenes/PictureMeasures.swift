public import FrameCore

/// What makes a picture a poor thumbnail, measured on its luma: dark (a fade to black),
/// flat (a fade, a blank title), or soft (motion blur, out of focus). ffmpeg's
/// blackdetect, its thumbnail filter and blurdetect look at the same things.
public struct PictureMeasures: Sendable, Equatable {
    /// Mean luma, 0–255.
    public var meanLuma: Double
    /// Standard deviation of luma, 0–127.5: how much the picture varies at all.
    public var contrast: Double
    /// Mean absolute Laplacian of luma (4-neighbour): edge energy. Blur lowers it.
    public var sharpness: Double

    /// Below this mean luma a picture is black (ffmpeg's blackdetect takes 0.1 of the range).
    public static let darkLuma = 24.0
    /// Below this contrast a picture is flat: a fade's middle or a blank card.
    public static let flatContrast = 10.0

    /// The measures of `picture` (any size; a small one is enough).
    public init(_ picture: Frame) {
        let luma = lumaPlane(picture)
        let (w, h) = (picture.width, picture.height)
        var sum = 0.0, squares = 0.0
        for y in luma { let v = Double(y); sum += v; squares += v * v }
        let n = Double(max(1, luma.count))
        meanLuma = sum / n
        contrast = max(0, squares / n - meanLuma * meanLuma).squareRoot()
        var edges = 0.0
        if w > 2 && h > 2 {
            for y in 1..<(h - 1) {
                for x in 1..<(w - 1) {
                    let c = 4 * Int(luma[y * w + x])
                    let around = Int(luma[y * w + x - 1]) + Int(luma[y * w + x + 1]) + Int(luma[(y - 1) * w + x]) + Int(luma[(y + 1) * w + x])
                    edges += Double(abs(c - around))
                }
            }
            edges /= Double((w - 2) * (h - 2))
        }
        sharpness = edges
    }

    /// Why the picture should not be a thumbnail, or nil when it may.
    public var flaw: String? {
        if meanLuma < Self.darkLuma { return "dark" }
        if contrast < Self.flatContrast { return "flat" }
        return nil
    }

    /// One line for a manifest.
    public var summary: String {
        func f(_ v: Double) -> String { String(Int(v.rounded())) }
        return "luma \(f(meanLuma)), contrast \(f(contrast)), sharpness \(String(Double(Int(sharpness * 10)) / 10))"
    }
}
