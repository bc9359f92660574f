@testable import Effects
import Foundation
import FrameCore
import TestSupport
import Testing

/// `blur` (issue 48): the Gaussian against OpenCV's `GaussianBlur` computed in float
/// with replicated edges, the box and the motion blur against their definitions.
@Suite struct BlurTests {
    /// The oracle venv's python (make setup-test), which has OpenCV.
    static let python = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".oracle-venv/bin/python").path

    /// OpenCV's Gaussian of `frame` (float32, BORDER_REPLICATE), rounded to bytes.
    static func openCV(_ frame: Frame, sigma: Double) async throws -> Frame {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-blur-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.bgra"), output = dir.appendingPathComponent("out.bgra")
        try Data(frame.packedBytes()).write(to: input)
        let script = """
            import sys, numpy as np, cv2
            w, h, s = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
            a = np.fromfile(sys.argv[1], np.uint8).reshape(h, w, 4).astype(np.float32)
            b = cv2.GaussianBlur(a, (0, 0), s, borderType=cv2.BORDER_REPLICATE)
            np.clip(np.floor(b + 0.5), 0, 255).astype(np.uint8).tofile(sys.argv[2])
            """
        _ = try await Subprocess.output(python, ["-c", script, input.path, output.path, "\(frame.width)", "\(frame.height)", "\(sigma)"])
        let bytes = try [UInt8](Data(contentsOf: output))
        var out = Frame(width: frame.width, height: frame.height)
        let stride = out.bytesPerRow, row = frame.width * 4
        out.withUnsafeMutableBytes { b in
            for y in 0..<frame.height { for i in 0..<row { b[y * stride + i] = bytes[y * row + i] } }
        }
        return out
    }

    @Test(arguments: [1.0, 2.5, 4, 16, 64])
    func gaussianIsOpenCVs(sigma: Double) async throws {
        let source = SharpenTests.scene(width: 320, height: 200)
        let ours = try Fixture.apply("blur:sigma=\(sigma)", to: source)
        let theirs = try await Self.openCV(source, sigma: sigma)
        let psnr = SharpenTests.psnr(ours, theirs)
        // The floor is 40 dB; the taps and the five boxes give 50 or more.
        print("blur sigma \(sigma): \(psnr) dB against OpenCV"); #expect(psnr >= 45, "sigma \(sigma): PSNR \(psnr) dB, largest difference \(Fixture.difference(ours, theirs))")
        #expect(SharpenTests.psnr(ours, source) < 35, "it blurs")
    }

    @Test func boxIsTheMeanOfTheSquare() throws {
        let source = Fixture.random(width: 64, height: 40)
        for radius in [1, 3, 9] {
            let ours = try Fixture.apply("blur:mode=box:radius=\(radius)", to: source)
            let worst = Fixture.maxError(ours, source: source) { x, y in
                var sum = (0.0, 0.0, 0.0)
                for dy in -radius...radius {
                    for dx in -radius...radius {
                        let p = source.pixel(x: min(max(x + dx, 0), 63), y: min(max(y + dy, 0), 39))
                        sum.0 += Double(p.r); sum.1 += Double(p.g); sum.2 += Double(p.b)
                    }
                }
                let n = Double((2 * radius + 1) * (2 * radius + 1))
                return (Int((sum.0 / n + 0.5).rounded(.down)), Int((sum.1 / n + 0.5).rounded(.down)), Int((sum.2 / n + 0.5).rounded(.down)))
            }
            #expect(worst <= 1, "radius \(radius): \(worst)")
        }
    }

    @Test(arguments: [0.0, 30, 90, 135])
    func motionIsTheMeanAlongTheLine(angle: Double) throws {
        let source = SharpenTests.scene(width: 80, height: 48)
        let length = 12.0
        let ours = try Fixture.apply("blur:mode=motion:length=\(length):angle=\(angle)", to: source)
        let a = angle * .pi / 180, dx = cos(a) * length, dy = -sin(a) * length
        let taps = Int(length.rounded(.up)) + 1
        // Bilinear reads, pixel centres at +0.5, clamped to the picture.
        func read(_ px: Double, _ py: Double) -> (Double, Double, Double) {
            let ux = min(max(px - 0.5, 0), Double(source.width - 1)), uy = min(max(py - 0.5, 0), Double(source.height - 1))
            let x0 = Int(ux), y0 = Int(uy), x1 = min(x0 + 1, source.width - 1), y1 = min(y0 + 1, source.height - 1)
            let fx = ux - Double(x0), fy = uy - Double(y0)
            func c(_ x: Int, _ y: Int) -> (Double, Double, Double) {
                let p = source.pixel(x: x, y: y)
                return (Double(p.r), Double(p.g), Double(p.b))
            }
            let (p00, p10, p01, p11) = (c(x0, y0), c(x1, y0), c(x0, y1), c(x1, y1))
            func mix(_ k: KeyPath<(Double, Double, Double), Double>) -> Double {
                let top = p00[keyPath: k] + (p10[keyPath: k] - p00[keyPath: k]) * fx
                let bottom = p01[keyPath: k] + (p11[keyPath: k] - p01[keyPath: k]) * fx
                return top + (bottom - top) * fy
            }
            return (mix(\.0), mix(\.1), mix(\.2))
        }
        let worst = Fixture.maxError(ours, source: source) { x, y in
            var sum = (0.0, 0.0, 0.0)
            for k in 0..<taps {
                let t = Double(k) / Double(taps - 1) - 0.5
                let v = read(Double(x) + 0.5 + t * dx, Double(y) + 0.5 + t * dy)
                sum.0 += v.0; sum.1 += v.1; sum.2 += v.2
            }
            let n = Double(taps)
            return (Fixture.q(sum.0 / n / 255), Fixture.q(sum.1 / n / 255), Fixture.q(sum.2 / n / 255))
        }
        #expect(worst <= 1, "angle \(angle): \(worst)")
        #expect(Fixture.difference(ours, source) > 20, "it blurs")
    }

    /// Large sigmas blur a reduced picture; the pixels past each edge are still the edge
    /// pixel repeated, not the mean of the block at the edge: a one-pixel white frame
    /// around a dark picture (a block's mean would hold a quarter of its light or less)
    /// blurs as OpenCV blurs it. Odd sizes leave a part block at the right and the bottom.
    @Test(arguments: [9.0, 16, 40])
    func edgesRepeatTheirOwnPixels(sigma: Double) async throws {
        var source = SharpenTests.scene(width: 203, height: 117)
        let stride = source.bytesPerRow
        source.withUnsafeMutableBytes { b in
            for y in 0..<117 {
                for x in 0..<203 where x == 0 || y == 0 || x == 202 || y == 116 {
                    for c in 0..<3 { b[y * stride + x * 4 + c] = 255 }
                }
            }
        }
        let ours = try Fixture.apply("blur:sigma=\(sigma)", to: source)
        let theirs = try await Self.openCV(source, sigma: sigma)
        let psnr = SharpenTests.psnr(ours, theirs)
        #expect(psnr >= 45 && Fixture.difference(ours, theirs) <= 3,
                "sigma \(sigma): PSNR \(psnr) dB, largest difference \(Fixture.difference(ours, theirs))")
    }

    /// A band rendered alone (rows and the rows its columns reach) gives the whole
    /// picture's pixels: the running sums start elsewhere, so within a level.
    @Test(arguments: ["blur:sigma=2", "blur:sigma=9", "blur:sigma=40", "blur:mode=box:radius=5", "blur:sigma=5:space=linear",
                      "blur:mode=motion:length=9:angle=20"])
    func aBandAloneIsTheWholePicturesBand(chain: String) throws {
        let source = SharpenTests.scene(width: 120, height: 90)
        let whole = try Fixture.apply(chain, to: source)
        let effect = try #require(try EffectChain(parsing: chain).entries.first?.effect as? Blur)
        var bands = Frame(width: source.width, height: source.height)
        let context = RenderContext(time: 0, width: source.width, height: source.height)
        let stride = bands.bytesPerRow / 4
        source.withUnsafeBytes { s in
            bands.withUnsafeMutableBytes { d in
                let image = SourceImage(base: s.baseAddress!.assumingMemoryBound(to: UInt32.self), width: source.width,
                                        height: source.height, stride: source.bytesPerRow / 4)
                for rows in [0..<7, 7..<50, 50..<89, 89..<90] {
                    effect.render(image, into: d.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                  destinationStride: stride, rows: rows, context: context)
                }
            }
        }
        #expect(Fixture.difference(whole, bands) <= 1)
    }

    /// Linear light: black and white stripes a pixel wide, blurred, are half the light
    /// (sRGB 188), where the encoded blur gives half the value (128).
    @Test func linearMixesLight() throws {
        var stripes = Frame(width: 40, height: 20)
        let stride = stripes.bytesPerRow
        stripes.withUnsafeMutableBytes { b in
            for y in 0..<20 { for x in 0..<40 { for c in 0..<3 { b[y * stride + x * 4 + c] = x % 2 == 0 ? 0 : 255 }; b[y * stride + x * 4 + 3] = 255 } }
        }
        let linear = try Fixture.apply("blur:sigma=4:space=linear", to: stripes).pixel(x: 20, y: 10)
        let encoded = try Fixture.apply("blur:sigma=4", to: stripes).pixel(x: 20, y: 10)
        #expect(abs(Int(linear.g) - 188) <= 1 && abs(Int(encoded.g) - 128) <= 1, "linear \(linear), encoded \(encoded)")
        #expect(Fixture.sameBytes(try Fixture.apply("blur:sigma=0", to: stripes), stripes))
        #expect(Fixture.sameBytes(try Fixture.apply("blur:mode=box:radius=0", to: stripes), stripes))
    }
}
