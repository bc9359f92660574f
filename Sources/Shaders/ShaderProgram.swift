import CShader
import Synchronization
import Foundation
public import FrameCore

/// A shader compiled once and made ready to run as Vulkan compute: on a GPU when the
/// loader has one, else on the CPU through Mesa's lavapipe. Frames go through buffers
/// the program keeps mapped for their size (no allocation per frame).
public final class ShaderProgram: Sendable {
    /// What was read from the file.
    public let source: ShaderSource
    /// The compiled program (the C shim's), which takes its own lock for each run.
    private let handle: Handle

    /// The C program's pointer: safe to share, since the shim locks it for each run.
    private final class Handle: @unchecked Sendable {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { vfx_shader_program_free(pointer) }
    }

    /// A C string the shim wrote into `buffer`.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The first failure, and how many failures there have been.
    private let failures = Mutex<(first: String?, latest: String?, count: Int)>((nil, nil, 0))

    /// The first failure any effect of this program recorded (``record(_:)``), nil when
    /// none.
    public var failure: String? { failures.withLock { $0.first } }

    /// How many failures have been recorded, and the latest: an effect made after the
    /// n-th asks only about those after it (``ShaderEffect/failure``).
    var failuresSoFar: (count: Int, latest: String?) { failures.withLock { ($0.count, $0.latest) } }

    /// Keeps a failure of a frame that could not throw it.
    func record(_ message: String) {
        failures.withLock {
            if $0.first == nil { $0.first = message }
            $0.latest = message
            $0.count += 1
        }
    }

    /// Which Vulkan device shaders run on: chosen by type, never by index.
    public enum Device: String, Sendable, CaseIterable {
        /// A discrete or integrated GPU when the loader has one, else the CPU's lavapipe.
        case auto
        /// The CPU (Mesa's lavapipe), even where there is a GPU.
        case cpu
        /// A GPU; shaders fail in one line where there is none.
        case gpu
    }

    /// Chooses the device for the process's shaders; call before the first is compiled
    /// (the choice is made once).
    public static func prefer(_ device: Device) {
        vfx_shader_prefer(device == .auto ? 0 : device == .cpu ? 1 : 2)
    }

    /// Ends every wait for a shader within 100 ms and makes later runs fail: the process
    /// is stopping (Ctrl-C), and a frame on the device must not hold it.
    public static func interrupt() { vfx_shader_interrupt() }

    /// How long one frame may take before the run is ended.
    /// 10 s, or `VIDFX_SHADER_FRAME_LIMIT` seconds (1…3600) for a test that must interrupt
    /// a frame on a loaded machine before the limit could.
    public static let frameLimit: Duration = {
        if let given = ProcessInfo.processInfo.environment["VIDFX_SHADER_FRAME_LIMIT"], let seconds = Int(given), (1...3600).contains(seconds) {
            return .seconds(seconds)
        }
        return .seconds(10)
    }()

    /// Whether shaders can run here, and on what: the device's name, or why not (one line
    /// naming what to install). The compiler is looked for when a shader is compiled.
    public static func device() -> Result<String, ShaderError> {
        if let why = vfx_shader_open(0) { return .failure(ShaderError(String(validatingCString: why) ?? "Vulkan cannot be used")) }
        return .success(String(validatingCString: vfx_shader_device_name()) ?? "a Vulkan device")
    }

    /// Compiles `source` for the device.
    /// - Throws: ``ShaderError``: the compiler's messages at the user's own lines, or why
    ///   the device or the compiler cannot be used.
    public init(_ source: ShaderSource) throws(ShaderError) {
        self.source = source
        if let why = vfx_shader_open(0) { throw ShaderError("\(source.name): \(String(validatingCString: why) ?? "Vulkan cannot be used")") }
        let words = try ShaderCompiler.compile(source.program, name: source.name, original: source.text)
        var error = [CChar](repeating: 0, count: 1024)
        guard let made = vfx_shader_program_make(words, words.count, source.uniformSize, source.readsSampledFrame ? 1 : 0, &error, error.count) else {
            throw ShaderError("\(source.name): \(Self.text(error))")
        }
        handle = Handle(made)
    }

    /// Runs the shader over `width`×`height` pixels: `source` in (`sourceStride` pixels a
    /// row), `destination` out (`destinationStride` a row; it may be the same memory).
    /// Rows are copied into and out of the device's mapped memory, packed there.
    /// - Throws: ``ShaderError`` when the device fails or a frame passes ``frameLimit``.
    public func run(source: UnsafePointer<UInt32>, sourceStride: Int, destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                    width: Int, height: Int, time: Double, tick: Int64, frameRate: Double? = nil,
                    values: [String: [Double]] = [:], images: ShaderImages? = nil) throws(ShaderError) {
        // A run of one: the same checks, the same path.
        try Self.run([Part(self, values: values, images: images)], source: source, sourceStride: sourceStride, destination: destination,
                     destinationStride: destinationStride, width: width, height: height, time: time, tick: tick, frameRate: frameRate)
    }

    /// One program's part of a run (``run(_:source:sourceStride:destination:destinationStride:width:height:time:tick:frameRate:)``):
    /// its parameters' values and its images.
    public struct Part: Sendable {
        /// The program.
        public var program: ShaderProgram
        /// Its parameters' values (the defaults where a name is missing).
        public var values: [String: [Double]]
        /// Its images.
        public var images: ShaderImages?

        /// A part of a run.
        public init(_ program: ShaderProgram, values: [String: [Double]] = [:], images: ShaderImages? = nil) {
            self.program = program
            self.values = values
            self.images = images
        }
    }

    /// The most programs one run takes.
    public static let mostInARun = Int(VFX_SHADER_MOST_CHAINED)

    /// Runs `parts` one after another over the frame in one submission: the frame goes to
    /// the device once and comes back once, each program reading what the one before wrote
    /// there (the same pixels as running each in turn). A program may be in a run once.
    /// - Throws: ``ShaderError`` naming the shader that failed, as ``run(source:sourceStride:destination:destinationStride:width:height:time:tick:frameRate:values:images:)``.
    ///
    /// `between[i]`, where given, works on the frame after part i on the device's own
    /// memory (its packed rows, `width` pixels a row), before part i + 1 reads it: built-in
    /// effects between two shaders without a copy of the frame.
    ///
    /// A part that runs past `limit` is halted (its loops end) and the run throws; the
    /// programs work for the next run.
    public static func run(_ parts: [Part], source: UnsafePointer<UInt32>, sourceStride: Int, destination: UnsafeMutablePointer<UInt32>,
                           destinationStride: Int, width: Int, height: Int, time: Double, tick: Int64, frameRate: Double? = nil,
                           between: [(@Sendable (UnsafeMutablePointer<UInt32>) -> Void)?] = [],
                           limit: Duration = frameLimit) throws(ShaderError) {
        guard let first = parts.first else { throw ShaderError("a run of no shaders") }
        guard parts.count <= mostInARun else { throw ShaderError("\(first.program.source.name): a run of more than \(mostInARun) shaders") }
        // Bounded before any conversion to the shim's 32-bit sizes could trap.
        guard (1...32768).contains(width), (1...32768).contains(height), sourceStride >= width, destinationStride >= width else {
            throw ShaderError("\(first.program.source.name): a \(width)x\(height) frame is outside what a shader takes")
        }
        for part in parts {
            let wanted = part.program.source.parameters.filter { $0.kind == .sampler2D }.count
            guard wanted <= (part.images?.descriptors.count ?? 0) else {
                throw ShaderError("\(part.program.source.name): the shader reads \(wanted) image(s); \(part.images?.descriptors.count ?? 0) given")
            }
        }
        let blocks = parts.map {
            $0.program.uniforms(width: width, height: height, time: time, tick: tick, frameRate: frameRate, values: $0.values, images: $0.images)
        }
        let words = parts.map { $0.images?.words ?? [] }
        let programs: [OpaquePointer?] = parts.map { $0.program.handle.pointer }
        let counts = words.map(\.count), generations = parts.map { $0.images?.generation ?? 0 }
        var error = [CChar](repeating: 0, count: 1024)
        var failed: Int32 = 0
        let milliseconds = UInt64(max(1, min(3_600_000, limit.components.seconds * 1000 + limit.components.attoseconds / 1_000_000_000_000_000)))
        let work = Between((0..<parts.count).map { $0 < between.count ? between[$0] : nil })
        let hostAfter: [UInt8] = work.steps.map { $0 == nil ? 0 : 1 }
        let context = Unmanaged.passRetained(work)
        defer { context.release() }
        let call: @convention(c) (Int32, UnsafeMutablePointer<UInt32>?, UnsafeMutableRawPointer?) -> Void = { after, pixels, context in
            guard let pixels, let context else { return }
            let work = Unmanaged<Between>.fromOpaque(context).takeUnretainedValue()
            if after >= 0, Int(after) < work.steps.count { work.steps[Int(after)]?(pixels) }
        }
        // Pointers to each block and each image array, alive for the call.
        let status = withPointers(to: blocks) { (uniforms: [UnsafeRawPointer?]) in
            withPointers(to: words) { (images: [UnsafePointer<UInt32>?]) in
                vfx_shader_chain_run(programs, Int32(parts.count), source, sourceStride, destination, destinationStride, Int32(width), Int32(height),
                                     uniforms, images, counts, generations, hostAfter, work.steps.contains { $0 != nil } ? call : nil,
                                     context.toOpaque(), milliseconds, &failed, &error, error.count)
            }
        }
        guard status == 0 else {
            let culprit = parts[Int(failed) < parts.count && failed >= 0 ? Int(failed) : 0].program
            throw ShaderError("\(culprit.source.name): \(text(error))")
        }
    }

    /// The host's work between parts of a run, handed to the shim as its context.
    private final class Between: Sendable {
        let steps: [(@Sendable (UnsafeMutablePointer<UInt32>) -> Void)?]
        init(_ steps: [(@Sendable (UnsafeMutablePointer<UInt32>) -> Void)?]) { self.steps = steps }
    }

    /// Calls `body` with a pointer to each array's elements.
    private static func withPointers<T, R>(to arrays: [[T]], _ body: ([UnsafePointer<T>?]) -> R) -> R {
        func step(_ i: Int, _ pointers: [UnsafePointer<T>?]) -> R {
            guard i < arrays.count else { return body(pointers) }
            return arrays[i].withUnsafeBufferPointer { step(i + 1, pointers + [$0.baseAddress]) }
        }
        return step(0, [])
    }

    private static func withPointers<R>(to arrays: [[UInt8]], _ body: ([UnsafeRawPointer?]) -> R) -> R {
        withPointers(to: arrays) { (typed: [UnsafePointer<UInt8>?]) in body(typed.map { $0.map(UnsafeRawPointer.init) }) }
    }

    /// The uniform block's bytes (std140): the built-ins, then each parameter.
    func uniforms(width: Int, height: Int, time: Double, tick: Int64, frameRate: Double?, values: [String: [Double]],
                  images: ShaderImages? = nil) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: source.uniformSize)
        func put<T>(_ value: T, at offset: Int) {
            withUnsafeBytes(of: value) { bytes in for (i, b) in bytes.enumerated() { block[offset + i] = b } }
        }
        put(Float(width), at: 0)
        put(Float(height), at: 4)
        put(Float(time), at: 8)
        put(Int32(truncatingIfNeeded: tick), at: 12)
        let rate = frameRate.map { $0.isFinite && $0 > 0 ? $0 : 0 } ?? 0
        put(Float(rate), at: 16)
        put(Float(rate > 0 ? 1 / rate : 0), at: 20)
        put(Float(Self.random(tick)), at: 24)
        // Shadertoy's iDate: the year, the month from 0, the day, and the seconds of the day.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var t = now.tv_sec, parts = tm()
        localtime_r(&t, &parts)
        put(SIMD4<Float>(Float(parts.tm_year + 1900), Float(parts.tm_mon), Float(parts.tm_mday),
                         Float(parts.tm_hour * 3600 + parts.tm_min * 60 + parts.tm_sec) + Float(now.tv_nsec) / 1e9), at: 32)
        var image = 0
        for p in source.parameters {
            if p.kind == .sampler2D {
                if let d = images?.descriptors[image] {
                    put(SIMD4<Int32>(d.width, d.height, d.offset, 0), at: p.offset)
                }
                image += 1
                continue
            }
            let value = values[p.name] ?? p.defaultValue
            for (i, v) in value.prefix(p.kind.components).enumerated() {
                switch p.kind {
                case .int: put(Int32(max(-1e9, min(1e9, v)).rounded()), at: p.offset + 4 * i)
                case .bool: put(UInt32(v != 0 ? 1 : 0), at: p.offset + 4 * i)
                default: put(Float(v), at: p.offset + 4 * i)
                }
            }
        }
        return block
    }

    /// mpv's `random` for a tick: the same number for the same frame, in 0…1 (SplitMix64).
    static func random(_ tick: Int64) -> Double {
        var z = UInt64(bitPattern: tick) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }

    /// Runs the shader over `frame` in place, at `time` seconds and output tick `tick`,
    /// with `values` for its parameters (their defaults where a name is missing) and
    /// `frameRate` for the forms that are told it (Shadertoy's `iFrameRate`).
    /// - Throws: ``ShaderError`` when the device fails or a frame passes ``frameLimit``.
    public func run(_ frame: inout Frame, time: Double, tick: Int64, frameRate: Double? = nil,
                    values: [String: [Double]] = [:], images: ShaderImages? = nil) throws(ShaderError) {
        let (width, height, stride) = (frame.width, frame.height, frame.bytesPerRow / 4)
        try frame.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) throws(ShaderError) in
            let base = bytes.baseAddress!.assumingMemoryBound(to: UInt32.self)
            try run(source: base, sourceStride: stride, destination: base, destinationStride: stride, width: width, height: height,
                    time: time, tick: tick, frameRate: frameRate, values: values, images: images)
        }
    }
}

/// The images a shader's image parameters read (`uniform sampler2D key;`), their pixels
/// one after another as the device takes them: made once for an effect, copied to the
/// device once for as long as the same images are run.
public final class ShaderImages: Sendable {
    /// The pixels of every image, in order (32-bit BGRA, rows packed).
    let words: [UInt32]
    /// Each image's width, height and first pixel in ``words``.
    let descriptors: [(width: Int32, height: Int32, offset: Int32)]
    /// Names these images for the device's copy (never 0).
    let generation: UInt64

    /// The largest image a shader reads, a side.
    public static let largestSide = 16384
    /// The most pixels all of a shader's images may have together.
    public static let mostPixels = 64 << 20

    private static let made = Atomic<UInt64>(0)

    /// The images `frames`, in the order of the shader's image parameters; `names` name
    /// them in messages.
    /// - Throws: ``ShaderError`` when one is larger than ``largestSide`` or all together
    ///   are more than ``mostPixels``.
    public init(_ frames: [Frame], names: [String]) throws(ShaderError) {
        var words: [UInt32] = []
        var descriptors: [(width: Int32, height: Int32, offset: Int32)] = []
        for (i, frame) in frames.enumerated() {
            let name = i < names.count ? names[i] : "image \(i + 1)"
            guard frame.width > 0, frame.height > 0, frame.width <= Self.largestSide, frame.height <= Self.largestSide else {
                throw ShaderError("\(name): \(frame.width)x\(frame.height); a shader's image may be up to \(Self.largestSide) pixels a side")
            }
            guard words.count + frame.width * frame.height <= Self.mostPixels else {
                throw ShaderError("\(name): a shader's images may have \(Self.mostPixels >> 20) M pixels together")
            }
            descriptors.append((Int32(frame.width), Int32(frame.height), Int32(words.count)))
            let stride = frame.bytesPerRow / 4
            frame.withUnsafeBytes { bytes in
                let p = bytes.baseAddress!.assumingMemoryBound(to: UInt32.self)
                for y in 0..<frame.height { words.append(contentsOf: UnsafeBufferPointer(start: p + y * stride, count: frame.width)) }
            }
        }
        self.words = words
        self.descriptors = descriptors
        generation = Self.made.add(1, ordering: .relaxed).newValue
    }
}
