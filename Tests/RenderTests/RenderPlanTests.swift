import Detection
import Effects
import Foundation
import FrameCore
import FrameSource
import MediaInput
import Render
import Sinks
import TestSupport
import Testing

/// A redaction of the suite's own, made of nothing but the library's protocols: an opaque
/// black box over each face. No library code names it, yet a render of it detects for
/// recall, reports what it covered and refuses to replace a report.
struct BlackBoxes: RedactingEffect {
    static let descriptor = EffectDescriptor(name: "blackboxes", category: .detection, summary: "A black box over each face.",
                                             parameters: [], example: "blackboxes")
    static var needs: DetectionNeeds { .faces }

    init(parameters: Parameters, resources: EffectResources) {}

    var keepsOutline: Bool { false }
    var takesSmallFaces: Bool { true }

    /// Each face's box in whole pixels, clipped to the frame.
    func boxes(_ observations: [Observation], width: Int, height: Int) -> [(x: Range<Int>, y: Range<Int>)] {
        observations.filter { $0.kind == .face }.compactMap { face in
            func clip(_ v: Double, _ limit: Int) -> Int { Int(max(0, min(Double(limit), v.rounded()))) }
            let b = face.bounds
            let x = clip(b.x, width)..<clip(b.x + b.width, width), y = clip(b.y, height)..<clip(b.y + b.height, height)
            return x.isEmpty || y.isEmpty ? nil : (x, y)
        }
    }

    func redactedPixels(observations: [Observation], width: Int, height: Int) -> Int {
        var covered = [Bool](repeating: false, count: width * height)
        for box in boxes(observations, width: width, height: height) { for y in box.y { for x in box.x { covered[y * width + x] = true } } }
        return covered.filter { $0 }.count
    }

    func render(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int, rows: Range<Int>,
                context: RenderContext) {
        let boxes = boxes(context.observations, width: source.width, height: source.height)
        for y in rows {
            let row = destination + y * destinationStride
            row.update(from: source.row(y), count: source.width)
            for box in boxes where box.y.contains(y) { for x in box.x { row[x] = 0xFF00_0000 } }
        }
    }
}

/// The one plan every render is made of (issue 68), in this process: a redaction the
/// library has never heard of, a video with its sound, a GIF's two passes, stills, and
/// the walls (a report never replaced without -y, a still past the end refused first).
@Suite struct RenderPlanTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func media(_ name: String) -> String { root.appendingPathComponent("testmedia/\(name)").path }
    static var detection: DetectionSettings {
        var settings = DetectionSettings()
        settings.faceModel = root.appendingPathComponent("models/centerface.onnx").path
        return settings
    }

    static func blackBoxes() throws -> EffectChain {
        EffectChain([.init(effect: BlackBoxes(parameters: try Parameters(parsing: [], for: BlackBoxes.descriptor), resources: EffectResources()),
                           parameters: try Parameters(parsing: [], for: BlackBoxes.descriptor))])
    }

    static func firstFrame(_ path: String) throws -> Frame {
        let source = try FrameSource(path)
        defer { source.close() }
        return try #require(try source.nextFrame())
    }

    static func pixel(_ frame: Frame, _ x: Int, _ y: Int) -> UInt32 {
        frame.withUnsafeBytes { $0.load(fromByteOffset: y * frame.bytesPerRow + 4 * x, as: UInt32.self) }
    }

    @Test func aRedactionOfTheCallersOwnIsDetectedForCheckedAndReported() throws {
        let scratch = try ScratchDirectory("plan-redaction")
        let chain = try Self.blackBoxes()
        #expect(chain.redacts && chain.firstRedaction == 0)
        #expect(DetectionStage.redacts(chain) && DetectionStage.takesSmallFaces(chain) && DetectionStage.defaultRecheckPasses(of: chain) == 0)
        let out = scratch.path("crowd.png")
        var plan = RenderPlan(input: try MediaInput(Self.media("crowd.jpg")), output: .photo(path: out, format: .png, size: nil))
        plan.chain = chain
        plan.detection = Self.detection
        #expect(plan.reportPath == scratch.path("crowd.redaction.json"))
        let result = try plan.run(stop: StopSignal())
        #expect(result.outcome.ending == .complete && result.outcome.frames == 1)
        let report = try #require(result.report)
        // The crowd's 20 faces (FaceDetectorTests), found at a redaction's threshold.
        #expect(report.facesFound >= 18 && report.source == "detector", "\(report.facesFound) faces")
        #expect(report.redactedShare > 0.01 && report.redactedShare < 0.2, "\(report.redactedShare)")
        #expect(FileManager.default.fileExists(atPath: scratch.path("crowd.redaction.json")))
        // The picture: black over the first face (56.7, 130.2, 33×42), the grass below as it was.
        let (rendered, original) = (try Self.firstFrame(out), try Self.firstFrame(Self.media("crowd.jpg")))
        #expect(Self.pixel(rendered, 73, 151) == 0xFF00_0000)
        #expect(Self.pixel(rendered, 400, 520) == Self.pixel(original, 400, 520))
        // Again, without overwrite: the report stands in the way, and nothing is rendered.
        try FileManager.default.removeItem(atPath: out)
        #expect(throws: RenderError.self) { _ = try plan.run(stop: StopSignal()) }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func aVideoKeepsItsSoundAndAGIFTakesTwoPasses() throws {
        let scratch = try ScratchDirectory("plan-video")
        let input = Self.media("h264-30fps.mp4")
        var settings = EncoderSink.Settings(output: scratch.path("sepia.mkv"))
        settings.preset = "ultrafast"
        var plan = RenderPlan(input: try MediaInput(input, access: .shared), output: .video(settings))
        plan.chain = try EffectChain(parsing: "sepia")
        plan.source.duration = Rational(1)
        var opened = 0, expected: Int?
        plan.opened = { opening, _ in opened += 1; expected = opening.expectedFrames }
        let video = try plan.run(stop: StopSignal())
        #expect(video.outcome.frames == 30 && expected == 30 && opened == 1)
        let summary = try #require(video.encoder?.summary)
        #expect(summary.frames == 30 && summary.audio != nil, "\(summary)")
        #expect(video.report == nil && plan.reportPath == nil)

        var gif = RenderPlan(input: try MediaInput(input, access: .seekable),
                             output: .gif(GIFSink.Settings(output: scratch.path("clip.gif"), frameRate: Rational(10)), sceneStarts: []))
        gif.source.frameRate = Rational(10)
        gif.source.duration = Rational(1)
        var passes: [Int] = []
        gif.opened = { opening, output in
            passes.append(opening.pass)
            // The caller sizes the palettes in proportion to the picture it now knows.
            if case .gif(var s, let starts) = output { s.size = (opening.info.width / 4, opening.info.height / 4); output = .gif(s, sceneStarts: starts) }
        }
        let written = try gif.run(stop: StopSignal())
        #expect(passes == [1, 2] && written.palettes == 1)
        let made = try #require(written.gif?.written)
        #expect(made.frames == 10 && made.width == written.opening.info.width / 4)
    }

    @Test func stillsPastTheEndAreRefusedBeforeAnyIsWritten() throws {
        let scratch = try ScratchDirectory("plan-stills")
        var plan = RenderPlan(input: try MediaInput(Self.media("h264-30fps.mp4"), access: .seekable),
                              output: .images(folder: scratch.path("stills"), format: .png))
        plan.pictures = .stills([Rational(1, 2), Rational(60)])
        #expect { _ = try plan.run(stop: StopSignal()) } throws: { "\($0)".contains("60 s is at or past the end") }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("stills")))
        plan.pictures = .stills([Rational(1, 2), Rational(1)])
        let result = try plan.run(stop: StopSignal())
        #expect(result.outcome.frames == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("stills")).filter { $0.hasSuffix(".png") }.count == 2)
    }
}
