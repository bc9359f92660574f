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
/// Frame `i` of the file, in pixels of its own.
func frame(_ i: Int) -> Frame {
    var f = Frame(width: width, height: height)
    let stride = f.bytesPerRow
    f.withUnsafeMutableBytes { out in
        data.withUnsafeBytes { src in
            for y in 0..<height {
                (out.baseAddress! + y * stride).copyMemory(from: src.baseAddress! + i * frameBytes + y * width * 4, byteCount: width * 4)
            }
        }
    }
    return f
}
let count = data.count / frameBytes
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
    for i in 0..<min(2, count) { var f = frame(i); chain.apply(to: &f) }  // warm the pool and caches
    var perFrame: [Double] = []
    for _ in 0..<runs {
        // Each frame handed over as a decoder hands it to the chain (pixels no one else
        // holds, so colour and overlay passes write in place), made before the clock starts.
        var batch = (0..<count).map(frame)
        let start = ContinuousClock.now
        for i in batch.indices { chain.apply(to: &batch[i], time: Double(i) / 30) }
        let elapsed = ContinuousClock.now - start
        let (s, atto) = elapsed.components
        perFrame.append((Double(s) + Double(atto) * 1e-18) / Double(count))
    }
    perFrame.sort()
    let median = perFrame[perFrame.count / 2]
    let mpx = Double(width * height) / median / 1e6
    FileHandle.standardOutput.write(Data("{\"chain\": \"\(text)\", \"msPerFrame\": \(median * 1000), \"mpxPerSecond\": \(mpx)}\n".utf8))
}
