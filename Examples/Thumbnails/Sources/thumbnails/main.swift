// thumbnails: a sepia thumbnail every N seconds of a video, as PNG files.
//
//     swift run thumbnails INPUT FOLDER [SECONDS] [WIDTH]
//
// FrameSource decodes to a cadence of one tick per SECONDS (tick k is the picture on
// screen at k × SECONDS), the Renderer runs each tick through the EffectChain into a
// sink, and the sink here (a FrameSink of this program's own) makes the thumbnail and
// hands it to ImageSequenceSink, which writes FOLDER/frame_000000.png… and a manifest,
// atomically.
import Effects
import Foundation
import FrameCore
import FrameSource
import Render
import Sinks

/// Scales each frame to fit `side`×`side`, then writes it to `images`.
final class ThumbnailSink: FrameSink {
    let images: ImageSequenceSink
    let side: Int

    init(images: ImageSequenceSink, side: Int) {
        self.images = images
        self.side = side
    }

    var name: String { images.name }

    func write(_ frame: Frame) throws(SinkError) -> Bool {
        let size = FrameScaler.fit(width: frame.width, height: frame.height, into: (side, side))
        return try images.write(FrameScaler.resize(frame, width: size.width, height: size.height))
    }

    func finish() throws(SinkError) { try images.finish() }

    func abandon() { images.abandon() }
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: thumbnails INPUT FOLDER [SECONDS] [WIDTH]\n".utf8))
    exit(64)
}
let input = arguments[arguments.startIndex]
let folder = arguments[arguments.startIndex + 1]
let every = arguments.count > 2 ? Int(arguments[arguments.startIndex + 2]) ?? 10 : 10
let width = arguments.count > 3 ? Int(arguments[arguments.startIndex + 3]) ?? 320 : 320

do {
    var configuration = FrameSource.Configuration()
    configuration.frameRate = Rational(1, Int64(max(1, every)))
    let source = try FrameSource(input, configuration: configuration)
    defer { source.close() }
    let images = try ImageSequenceSink(folder: folder, format: .png, input: input, fps: 1 / Double(max(1, every)), overwrite: false)
    let renderer = Renderer(chain: try EffectChain(parsing: "sepia:amount=0.8"), sink: ThumbnailSink(images: images, side: width))
    let outcome = try renderer.run(source)
    let written = outcome.frames
    print("thumbnails: \(written) thumbnail\(written == 1 ? "" : "s") of \(input), one every \(every) s, in \(folder)")
} catch let error as any UserFacingError {
    FileHandle.standardError.write(Data("thumbnails: \(error.message)\n".utf8))
    exit(error.exitCode)
} catch {
    FileHandle.standardError.write(Data("thumbnails: \(error)\n".utf8))
    exit(1)
}
