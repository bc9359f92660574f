// thumbnails: a sepia thumbnail every N seconds of a video, as PNG files.
//
//     swift run thumbnails INPUT FOLDER [SECONDS] [WIDTH]
//
// FrameSource decodes to a cadence of one tick per SECONDS (tick k is the picture on
// screen at k × SECONDS), EffectChain runs the effect, FrameScaler makes the thumbnail,
// and ImageSequenceSink writes FOLDER/frame_000000.png… and a manifest, atomically.
import Effects
import Foundation
import FrameCore
import FrameSource
import Sinks

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
    let chain = try EffectChain(parsing: "sepia:amount=0.8")
    let sink = try ImageSequenceSink(folder: folder, format: .png, input: input, fps: 1 / Double(max(1, every)), overwrite: false)
    var written = 0
    for try await frame in source.frames() {
        let graded = chain.apply(to: frame, time: frame.time.seconds)
        let size = FrameScaler.fit(width: graded.width, height: graded.height, into: (width, width))
        _ = try sink.write(FrameScaler.resize(graded, width: size.width, height: size.height))
        written += 1
    }
    try sink.finish()
    print("thumbnails: \(written) thumbnail\(written == 1 ? "" : "s") of \(input), one every \(every) s, in \(folder)")
} catch {
    FileHandle.standardError.write(Data("thumbnails: \(error)\n".utf8))
    exit(1)
}
