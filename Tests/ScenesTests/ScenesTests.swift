import Foundation
import FrameCore
@testable import Scenes
import TestSupport
import Testing

/// The detectors' parts against OpenCV (through the oracle venv) and against the rules
/// PySceneDetect documents.
@Suite struct ScenesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = root.appendingPathComponent(".oracle-venv/bin/python").path
    static let oracle = root.appendingPathComponent("Tests/Support/scene_oracle.py").path

    /// A picture of pseudo-random colours, with greys, pure hues and black mixed in.
    static func picture(width: Int, height: Int, seed: UInt64) -> Frame {
        var frame = Frame(width: width, height: height)
        var state = seed
        let stride = frame.bytesPerRow
        func next() -> UInt8 { state = state &* 6364136223846793005 &+ 1442695040888963407; return UInt8(truncatingIfNeeded: state >> 33) }
        frame.withUnsafeMutableBytes { p in
            for y in 0..<height {
                for x in 0..<width {
                    let o = y * stride + 4 * x
                    var (b, g, r) = (next(), next(), next())
                    switch (x + y) % 7 {
                    case 0: (g, r) = (b, b)          // grey
                    case 1: (b, g, r) = (0, 0, 0)    // black
                    case 2: r = max(b, g)            // two channels at the top
                    default: break
                    }
                    p[o] = b; p[o + 1] = g; p[o + 2] = r; p[o + 3] = 255
                }
            }
        }
        return frame
    }

    struct OracleAnswer: Decodable { var h: [UInt8]; var s: [UInt8]; var v: [UInt8]; var hash: [Bool]; var edges: [UInt8] }

    static func askOpenCV(_ frame: Frame) async throws -> OracleAnswer {
        let scratch = try ScratchDirectory("scenes-oracle")
        var bgr = [UInt8]()
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let p = frame.pixel(x: x, y: y)
                bgr += [p.b, p.g, p.r]
            }
        }
        let path = scratch.path("picture.bgr")
        try Data(bgr).write(to: URL(fileURLWithPath: path))
        let out = try await Subprocess.output(python, [oracle, path, "\(frame.width)", "\(frame.height)"])
        return try JSONDecoder().decode(OracleAnswer.self, from: out)
    }

    @Test func hsvIsOpenCVsToTheByte() async throws {
        let frame = Self.picture(width: 97, height: 61, seed: 7)
        let answer = try await Self.askOpenCV(frame)
        var planes = HSVPlanes()
        planes.fill(from: frame)
        #expect(planes.value == answer.v)
        #expect(planes.saturation == answer.s)
        let hueMisses = zip(planes.hue, answer.h).filter { $0 != $1 }.count
        #expect(hueMisses == 0, "\(hueMisses) of \(planes.hue.count) hues differ from OpenCV's")
    }

    /// The edge map behind the stats file's `delta_edges`: PySceneDetect's own
    /// `_detect_edges` (cv2.Canny at two thirds and four thirds of the median, dilated)
    /// on the same value plane. Tilted blocks of three levels under noise: clean steps
    /// (ties in the non-maximum suppression), light noise, and heavy noise (weak edges
    /// that hysteresis joins or drops); and sizes whose dilation square differs: 5 at
    /// 97×61 and 256×144, 7 at 640×360, where √pixels/192 is 2.5 and Python rounds it to 2.
    @Test(arguments: [(97, 61, 4), (256, 144, 0), (256, 144, 16), (640, 360, 3), (256, 455, 6)])
    func edgesArePySceneDetects(width: Int, height: Int, noiseShift: Int) async throws {
        let noise = Self.picture(width: width, height: height, seed: UInt64(width + height))
        var frame = Frame(width: width, height: height)
        let stride = frame.bytesPerRow
        frame.withUnsafeMutableBytes { p in
            for y in 0..<height {
                for x in 0..<width {
                    let o = y * stride + 4 * x
                    let block = ((x + y / 3) / 23 + (y - x / 4 + 1000) / 17) % 3
                    let n = noiseShift == 0 ? 0 : Int(noise.pixel(x: x, y: y).g) >> noiseShift
                    let level = UInt8(clamping: 40 + 70 * block + n)
                    p[o] = level; p[o + 1] = level; p[o + 2] = level; p[o + 3] = 255
                }
            }
        }
        let answer = try await Self.askOpenCV(frame)
        var planes = HSVPlanes()
        planes.fill(from: frame)
        #expect(planes.value == answer.v)
        var map = EdgeMap()
        map.fill(from: planes, width: width, height: height)
        let differ = zip(map.edges, answer.edges).filter { $0 != $1 }.count
        let marked = map.edges.filter { $0 == 255 }.count
        #expect(differ == 0, "\(width)x\(height): \(differ) of \(map.edges.count) edge pixels differ")
        #expect(marked > map.edges.count / 50 && marked < map.edges.count * 9 / 10, "\(marked) of \(map.edges.count) edge pixels: too few or too many to tell")
    }

    @Test func perceptualHashIsPySceneDetects() async throws {
        for seed in [UInt64(3), 11] {
            // A smooth picture with structure, as a video frame has, and noise on top.
            var frame = Self.picture(width: 256, height: 144, seed: seed)
            let stride = frame.bytesPerRow
            frame.withUnsafeMutableBytes { p in
                for y in 0..<144 {
                    for x in 0..<256 {
                        let o = y * stride + 4 * x
                        let base = 128 + 100 * sin(Double(x) / 23 + Double(seed)) * cos(Double(y) / 17)
                        for c in 0..<3 { p[o + c] = UInt8(clamping: Int(base) + Int(p[o + c]) / 16) }
                    }
                }
            }
            let answer = try await Self.askOpenCV(frame)
            let mine = HashDetector.hash(frame, size: 16)
            let differ = zip(mine, answer.hash).filter { $0 != $1 }.count
            // OpenCV's INTER_AREA accumulates in float and rounds some exact halves up and
            // some down (measured: 9 of 1024 pixels of a random picture), which moves the
            // coefficients nearest the median across it: up to 4% of the bits (the cut
            // threshold is 39.5%). A wrong DCT, scale or median would differ by half.
            #expect(differ <= 10, "\(differ) of 256 bits differ from PySceneDetect's hash")
        }
    }

    @Test func mergeFilterTurnsAFlashIntoNoCutAndKeepsScenesLong() {
        var filter = FlashFilter(mode: .merge, length: 10)
        var cuts: [Int] = []
        let above: Set<Int> = [20, 40, 42, 70]  // a cut, a flash's two edges, a cut
        for f in 0..<100 { cuts += filter.filter(frame: f, above: above.contains(f)) }
        // 40 starts a scene; 42 is too close and starts a merge that never lasts 10
        // pictures, so it adds nothing; 70 is far enough.
        #expect(cuts == [20, 40, 70])

        var suppress = FlashFilter(mode: .suppress, length: 10)
        var kept: [Int] = []
        for f in 0..<100 { kept += suppress.filter(frame: f, above: [5, 12, 25, 30].contains(f)) }
        #expect(kept == [12, 25], "within 10 of the start or of the last cut: dropped")
    }

    @Test func contentScoreIsTheMeanOfTheThreePlanesDifferences() {
        let detector = ContentDetector(minSceneLength: 0)
        var a = Frame(width: 4, height: 4), b = Frame(width: 4, height: 4)
        a.withUnsafeMutableBytes { p in for i in stride(from: 0, to: p.count, by: 4) { p[i] = 0; p[i + 1] = 0; p[i + 2] = 200; p[i + 3] = 255 } }
        b.withUnsafeMutableBytes { p in for i in stride(from: 0, to: p.count, by: 4) { p[i] = 0; p[i + 1] = 0; p[i + 2] = 100; p[i + 3] = 255 } }
        #expect(detector.score(a) == 0, "the first picture has nothing to differ from")
        // Pure red both times: hue 0, saturation 255; value 200 → 100.
        #expect(abs(detector.score(b) - 100.0 / 3) < 1e-9)
    }

    @Test func scenesRunBetweenCutsAndPrintAsPySceneDetect() {
        let cuts = [Cut(frame: 60, time: Rational(2), score: 40), Cut(frame: 105, time: Rational(7, 2), score: 33)]
        let list = SceneList(cuts: cuts, start: .init(frame: 0, time: Rational(0)), end: .init(frame: 288, time: Rational(48, 5)))
        #expect(list.scenes.map { [$0.start.frame, $0.end.frame] } == [[0, 60], [60, 105], [105, 288]])
        let csv = list.csv(rate: 30).split(separator: "\n")
        #expect(csv[0] == "Timecode List:,00:00:02.000,00:00:03.500")
        #expect(csv[2] == "1,1,00:00:00.000,0.000,60,00:00:02.000,2.000,60,00:00:02.000,2.000")
        #expect(csv[4] == "3,106,00:00:03.500,3.500,288,00:00:09.600,9.600,183,00:00:06.100,6.100")
        #expect(SceneList.timecode(3723.4567) == "01:02:03.457")
    }
}
