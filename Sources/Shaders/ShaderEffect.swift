public import Effects
import Foundation
import FrameCore
import Synchronization

/// A user's shader as an effect of the chain: its descriptor comes from the file (each
/// `uniform` a parameter, with its range, default and help), and it renders the whole
/// frame as Vulkan compute (``ShaderProgram``). Keyframed parameters rebuild it with the
/// same compiled program.
public struct ShaderEffect: LayerEffect, FallibleEffect, JoiningLayerEffect {
    /// The type's own descriptor; each shader has its own (``descriptor``).
    public static let descriptor = EffectDescriptor(
        name: "shader", category: .stylize, summary: "A shader file of your own: -e ./wave.glsl:amplitude=8 (docs/shaders.md).",
        parameters: [])

    /// This shader's descriptor, from its file.
    public let descriptor: EffectDescriptor
    /// The compiled program, shared by every value of the effect.
    public let program: ShaderProgram
    private let values: [String: [Double]]
    /// The images its image parameters read (nil when it has none).
    private let images: ShaderImages?
    /// This effect's failures: its own, shared with its keyframed rebuilds, not the
    /// program's (which every chain naming the same text shares: a studio still that
    /// passed its limit must not fail the next chain's).
    let failures: FailureNote

    /// A shader is made from its file (``init(contentsOf:)`` or a chain entry naming it).
    public init(parameters: Parameters, resources: EffectResources) throws(EffectError) {
        throw EffectError("shader: name the shader's file in the chain (-e ./wave.glsl)")
    }

    /// The shader in the file at `path` (`FILE#NAME` for one of a Metal file's
    /// functions), compiled, with its defaults; images are decoded by the resources'
    /// `loadImage`.
    /// - Throws: ``EffectError`` naming the file, its line and the cause.
    public init(contentsOf path: String, resources: EffectResources = EffectResources()) throws(EffectError) {
        let (descriptor, make) = try Self.load(path, resources: resources)
        guard let shader = try make(try Parameters(parsing: [], for: descriptor)) as? ShaderEffect else {
            throw EffectError("\(path): not a shader")
        }
        self = shader
    }

    init(program: ShaderProgram, descriptor: EffectDescriptor, parameters: Parameters, images: ShaderImages?,
         failures: FailureNote? = nil) {
        self.program = program
        self.descriptor = descriptor
        self.images = images
        self.failures = failures ?? FailureNote(programFailuresBefore: program.failuresSoFar.count)
        var values: [String: [Double]] = [:]
        for p in program.source.parameters {
            switch p.kind {
            case .sampler2D: continue
            case .float, .int, .bool: values[p.name] = [parameters.double(p.name)]
            default: values[p.name] = Array(parameters.vector(p.name).prefix(p.kind.components))
            }
        }
        self.values = values
    }

    /// The images `parameters` name for `program`'s image parameters, decoded by
    /// `resources` (a name not given is the parameter's default, beside `file`).
    static func images(for program: ShaderProgram, file: String, parameters: Parameters, resources: EffectResources) throws(EffectError)
        -> ShaderImages? {
        let wanted = program.source.parameters.filter { $0.kind == .sampler2D }
        guard !wanted.isEmpty else { return nil }
        guard let load = resources.loadImage else { throw EffectError("\(file): the shader's images need an image loader") }
        var frames: [Frame] = [], names: [String] = []
        for p in wanted {
            var path = parameters.text(p.name)
            if path.isEmpty, let given = p.defaultFile {
                let folder = (file as NSString).deletingLastPathComponent
                path = folder.isEmpty ? given : folder + "/" + given
            }
            guard !path.isEmpty else { throw EffectError("\(file): parameter '\(p.name)' is required (an image file)") }
            do { frames.append(try load(path)) } catch let error as EffectError { throw error } catch {
                throw EffectError("\(file): \(p.name): \(error)")
            }
            names.append(path)
        }
        do { return try ShaderImages(frames, names: names) } catch { throw EffectError(error.message) }
    }

    public func rebuilt(parameters: Parameters, resources: EffectResources) throws(EffectError) -> any Effect {
        // Images are files, never keyframed: the same ones serve every value.
        ShaderEffect(program: program, descriptor: descriptor, parameters: parameters, images: images, failures: failures)
    }

    /// This shader's program with its values and images, as a run takes it.
    var part: ShaderProgram.Part { ShaderProgram.Part(program, values: values, images: images) }

    /// A shader followed by another shader (or a run of them) is one run: one copy of the
    /// frame to the device and one back (``ShaderRun``).
    public func joined(with next: any LayerEffect) -> (any LayerEffect)? {
        ShaderRun([self]).joined(with: next)
    }

    /// A shader, colour effects, then another shader is one run too: the colour effects
    /// work on the frame on the device's memory between the two.
    public func joined(withColors colors: [any ColorEffect], then next: any LayerEffect) -> (any LayerEffect)? {
        ShaderRun([self]).joined(withColors: colors, then: next)
    }

    /// Joined with the built-ins between and the shader after them (``ShaderRun``): the
    /// built-ins work on the device's memory between the two.
    public func joined(withSteps steps: [JoinedStep], then next: any LayerEffect) -> (any LayerEffect)? {
        ShaderRun([self]).joined(withSteps: steps, then: next)
    }

    /// The first failure of a frame of this effect (the device lost, the time limit
    /// passed), or of its program since this effect was made: the frame is left as it
    /// came, and the failure is kept for whoever asks. An effect made later (a studio's
    /// next chain) is not failed by an earlier frame.
    public var failure: String? {
        if let own = failures.first { return own }
        let (count, latest) = program.failuresSoFar
        return count > failures.programFailuresBefore ? latest : nil
    }

    /// Renders as a run of one (``ShaderRun``): the rows asked for are cut from a whole render.
    public func render(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                       rows: Range<Int>, context: RenderContext) {
        ShaderRun([self]).render(source, into: destination, destinationStride: destinationStride, rows: rows, context: context)
    }

    /// Renders as a run of one (``ShaderRun``): a failed frame is left as it came and the
    /// failure kept (``failure``).
    public func render(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                       context: RenderContext) {
        ShaderRun([self]).render(source, into: destination, destinationStride: destinationStride, context: context)
    }

    // MARK: the chain's file effects

    /// Makes chain entries that name shader files effects (`-e ./wave.glsl:amount=0.5`):
    /// call once, before parsing chains (the command line and the studio do).
    public static func register() {
        EffectRegistry.register(EffectRegistry.FileEffects(names: isShaderFile, load: load))
    }

    /// The extensions of shader files: vidfx's GLSL (and Shadertoy's), Metal, mpv hooks.
    public static let extensions = [".glsl", ".frag", ".metal", ".hook"]

    /// Whether a chain entry's head names a shader file (`./wave.glsl`, `./fx.metal#warp`).
    @Sendable public static func isShaderFile(_ head: String) -> Bool {
        let file = split(head).file.lowercased()
        return extensions.contains { file.hasSuffix($0) }
    }

    /// A chain entry's head as its file and the function chosen (`fx.metal#warp`).
    static func split(_ head: String) -> (file: String, function: String?) {
        guard let mark = head.lastIndex(of: "#") else { return (head, nil) }
        let name = String(head[head.index(after: mark)...])
        guard ShaderSource.isName(name) else { return (head, nil) }
        return (String(head[..<mark]), name)
    }

    /// The descriptor and kind of the shader in the file at `path` (`FILE#NAME` for one
    /// of a Metal file's functions), compiled: what `vidfx effects FILE` prints.
    /// - Throws: ``EffectError`` naming the file, its line and the cause.
    public static func describe(_ path: String) throws(EffectError) -> (descriptor: EffectDescriptor, kind: ShaderSource.Kind) {
        let (descriptor, _, program) = try compiledEffect(path, resources: EffectResources())
        return (descriptor, program.source.kind)
    }

    /// Compiled shaders by file and contents: a chain parsed again (a studio edit, a
    /// keyframe) does not compile the same file again.
    private static let compiled = Mutex<[String: ShaderProgram]>([:])

    @Sendable static func load(_ head: String, resources: EffectResources) throws(EffectError)
        -> (descriptor: EffectDescriptor, make: @Sendable (Parameters) throws(EffectError) -> any Effect) {
        let (descriptor, make, _) = try compiledEffect(head, resources: resources)
        return (descriptor, make)
    }

    static func compiledEffect(_ head: String, resources: EffectResources) throws(EffectError)
        -> (EffectDescriptor, @Sendable (Parameters) throws(EffectError) -> any Effect, ShaderProgram) {
        let (file, function) = split(head)
        guard isShaderFile(head) else {
            throw EffectError("\(head): a shader file ends in \(extensions.joined(separator: ", ")) (docs/shaders.md)")
        }
        let bytes: [UInt8]
        if let read = resources.readFile {
            do { bytes = try read(file) } catch let error as EffectError { throw error } catch {
                throw EffectError("\(file): \(error)")
            }
        } else {
            bytes = try readShader(file)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw EffectError("\(file): not UTF-8 text") }
        let program: ShaderProgram
        do {
            let key = head + "\u{0}" + text
            if let known = compiled.withLock({ $0[key] }) {
                program = known
            } else {
                program = try ShaderProgram(try ShaderSource(text, name: file, function: function))
                compiled.withLock { if $0.count >= 16 { $0 = [:] }; $0[key] = program }
            }
        } catch {
            throw EffectError(error.message)
        }
        // A default the chain could not be given is refused here, not met later as a
        // value out of bounds (`uniform int n; // default 100000000`).
        for p in program.source.parameters where p.kind != .sampler2D {
            if let big = p.defaultValue.first(where: { $0.magnitude > ParameterSpec.largestMagnitude }) {
                throw EffectError("\(file): '\(p.name)': \(String(format: "%g", big)) is larger than a parameter may be (±\(Int(ParameterSpec.largestMagnitude)))")
            }
        }
        let form = program.source.form == .glsl ? "" : " (\(program.source.form.rawValue))"
        let descriptor = EffectDescriptor(name: head, category: .stylize,
                                          summary: "\(program.source.kind.rawValue) shader \(URL(fileURLWithPath: head).lastPathComponent)\(form)",
                                          parameters: program.source.parameters.map(spec), example: example(head, program.source.parameters))
        return (descriptor, { (parameters: Parameters) throws(EffectError) -> any Effect in
            ShaderEffect(program: program, descriptor: descriptor, parameters: parameters,
                         images: try images(for: program, file: file, parameters: parameters, resources: resources))
        }, program)
    }

    /// The bytes of the shader file at `path`: a regular file of at most 64 KiB, opened
    /// without waiting on a pipe (a FIFO named `x.glsl` is refused, not waited on).
    static func readShader(_ path: String) throws(EffectError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw EffectError("\(path): cannot read the shader (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw EffectError("\(path): not a regular file (a shader is a text file)")
        }
        guard info.st_size <= ShaderSource.longestSource else {
            throw EffectError("\(path): \(info.st_size) bytes; a shader may have up to \(ShaderSource.longestSource >> 10) KiB")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        return Array(bytes.prefix(done))
    }

    /// A chain entry that runs the shader, every parameter written out (its default, or for
    /// a required one the middle of its range, else 1): the syntax shown by `vidfx effects
    /// FILE`. Nil when an image must be named (no file can be guessed).
    static func example(_ head: String, _ parameters: [ShaderSource.Parameter]) -> String? {
        var entry = head
        for p in parameters {
            if p.kind == .sampler2D {
                guard p.defaultFile != nil else { return nil }
                continue
            }
            let fallback = p.range.map { ($0.lowerBound + $0.upperBound) / 2 } ?? 1
            var value = p.isRequired ? Array(repeating: fallback, count: p.kind.components) : p.defaultValue
            if p.kind == .int || p.kind == .bool { value = value.map { $0.rounded() } }
            let text: String
            if p.isColor {
                let bytes = value.map { String(format: "%02x", Int((min(1, max(0, $0)) * 255).rounded())) }
                text = "#" + (value.count == 4 && value[3] == 1 ? bytes.prefix(3) : bytes[...]).joined()
            } else {
                text = value.map { p.kind == .int || p.kind == .bool ? String(Int($0)) : String(format: "%g", $0) }.joined(separator: ",")
            }
            entry += ":\(p.name)=\(text)"
        }
        return entry
    }

    /// A shader's parameter as the built-ins' parameters are described.
    static func spec(_ p: ShaderSource.Parameter) -> ParameterSpec {
        let made = describedSpec(p)
        return p.isRequired ? made.withoutDefault() : made
    }

    private static func describedSpec(_ p: ShaderSource.Parameter) -> ParameterSpec {
        let help = p.help.isEmpty ? "\(p.kind.rawValue) parameter" : p.help
        switch p.kind {
        case .sampler2D:
            return .file(p.name, required: p.defaultFile == nil, help: help + (p.defaultFile.map { " (default \($0), beside the shader)" } ?? " (an image file)"))
        case .float: return .float(p.name, default: p.defaultValue[0], min: p.range?.lowerBound, max: p.range?.upperBound, help: help)
        case .int: return .int(p.name, default: Int(p.defaultValue[0]), min: p.range.map { Int($0.lowerBound) }, max: p.range.map { Int($0.upperBound) }, help: help)
        case .bool: return .int(p.name, default: Int(p.defaultValue[0]), min: 0, max: 1, help: help + " (0 or 1)")
        case .vec4 where p.isColor:
            let c = p.defaultValue
            return .color(p.name, default: (c[0], c[1], c[2], c[3]), help: help)
        default: return .vector(p.name, default: p.defaultValue, min: p.range?.lowerBound, max: p.range?.upperBound, help: help)
        }
    }
}

/// The first failure of an effect's frames, kept for the chain to find
/// (``FallibleEffect``).
final class FailureNote: Sendable {
    private let kept = Mutex<String?>(nil)
    /// How many failures the program had when the effect was made.
    let programFailuresBefore: Int
    init(programFailuresBefore: Int = 0) { self.programFailuresBefore = programFailuresBefore }
    /// The first failure, nil when none.
    var first: String? { kept.withLock { $0 } }
    /// Keeps `message` unless a failure is kept already.
    func record(_ message: String) { kept.withLock { if $0 == nil { $0 = message } } }
}
