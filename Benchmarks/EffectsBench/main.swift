// effects-bench: time effect chains on real frames, in process.
//
//   effects-bench FRAMES.bgra WIDTH HEIGHT CHAIN [CHAIN...]
//
// Reads raw BGRA frames, renders every chain over every frame `runs` times and
// prints one JSON object per chain: median milliseconds per frame and megapixels
// per second. bench/effects.py drives it and times ffmpeg's filters beside it.
import Effects
import Foundation
import FrameCore

let args = CommandLine.arguments
guard args.count >= 5, let width = Int(args[2]), let height = Int(args[3]) else {
    FileHandle.standardError.write(Data("usage: effects-bench FRAMES.bgra WIDTH HEIGHT CHAIN...\n".utf8))
    exit(2)
}
let data = try Data(contentsOf: URL(fileURLWithPath: args[1]))
let frameBytes = width * height * 4
var frames: [Frame] = []
for i in 0..<(data.count / frameBytes) {
    var f = Frame(width: width, height: height)
    let stride = f.bytesPerRow
    f.withUnsafeMutableBytes { out in
        data.withUnsafeBytes { src in
            for y in 0..<height {
                (out.baseAddress! + y * stride).copyMemory(from: src.baseAddress! + i * frameBytes + y * width * 4, byteCount: width * 4)
            }
        }
    }
    frames.append(f)
}
let runs = Int(ProcessInfo.processInfo.environment["RUNS"] ?? "") ?? 7

// Images for overlay: raw BGRA files named `…-WxH.bgra`.
let resources = EffectResources(loadImage: { path in
    let size = path.split(separator: "-").last!.dropLast(5).split(separator: "x").compactMap { Int($0) }
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    var image = Frame(width: size[0], height: size[1])
    let stride = image.bytesPerRow
    image.withUnsafeMutableBytes { out in
        bytes.withUnsafeBytes { src in
            for y in 0..<size[1] { (out.baseAddress! + y * stride).copyMemory(from: src.baseAddress! + y * size[0] * 4, byteCount: size[0] * 4) }
        }
    }
    return image
})

for text in args[4...] {
    let chain = try EffectChain(parsing: text, resources: resources)
    for f in frames.prefix(2) { _ = chain.apply(to: f) }  // warm the pool and caches
    var perFrame: [Double] = []
    for _ in 0..<runs {
        let start = ContinuousClock.now
        for (i, f) in frames.enumerated() { _ = chain.apply(to: f, time: Double(i) / 30) }
        let elapsed = ContinuousClock.now - start
        let (s, atto) = elapsed.components
        perFrame.append((Double(s) + Double(atto) * 1e-18) / Double(frames.count))
    }
    perFrame.sort()
    let median = perFrame[perFrame.count / 2]
    let mpx = Double(width * height) / median / 1e6
    FileHandle.standardOutput.write(Data("{\"chain\": \"\(text)\", \"msPerFrame\": \(median * 1000), \"mpxPerSecond\": \(mpx)}\n".utf8))
}
