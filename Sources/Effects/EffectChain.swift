public import FrameCore
import Synchronization

/// An ordered list of effects, rendered over BGRA frames on all cores.
///
/// Consecutive color effects are fused: each band of rows is processed in small
/// spans that stay in cache while every color effect runs over them, so a chain of
/// color effects costs one pass over memory.
///
/// ```swift
/// let chain = try EffectChain(parsing: "sepia=0.8,pixelate:size=12:mode=average")
/// let out = chain.apply(to: frame, time: 1.5)
/// ```
public final class EffectChain: Sendable {
    /// One effect of the chain with the parameters it was built from.
    public struct Entry: Sendable {
        /// The effect.
        public let effect: any Effect
        /// Its validated parameters (keyframed ones evaluated per frame).
        public let parameters: Parameters
        /// When it runs (`enable=10-20`); nil for always.
        public let enable: TimeRanges?

        /// Pairs an effect with the parameters it was made from.
        public init(effect: any Effect, parameters: Parameters, enable: TimeRanges? = nil) {
            self.effect = effect
            self.parameters = parameters
            self.enable = enable
        }

        /// Whether it runs, or how it renders, depends on the time.
        var variesInTime: Bool { enable != nil || parameters.isAnimated }
    }

    private enum Stage: Sendable {
        case color([any ColorEffect])
        case layer(any LayerEffect)
    }

    /// The effects in order.
    public let entries: [Entry]
    private let stages: [Stage]
    private let pool = FramePool(capacity: 3)
    private let fuse: Bool
    private let resources: EffectResources
    /// Keyframed effects as last built, by entry: the parameter values and the effect.
    private let built = Mutex<[Int: (values: [ParameterValue], effect: any Effect)]>([:])

    /// What the chain knows of its output (see ``duration``, ``frameRate``, ``inputName``).
    private let output = Mutex<(duration: Double?, frameRate: Rational?, inputName: String?)>((nil, nil, nil))

    /// The length in seconds of the output this chain renders, when known: effects that
    /// end somewhere (a fade out) read it from their ``RenderContext``. Set it before the
    /// first frame; nil (the default) for a live preview.
    public var duration: Double? {
        get { output.withLock { $0.duration } }
        set { output.withLock { $0.duration = newValue } }
    }

    /// The output's frame rate, when known: what a burnt-in timecode counts frames in
    /// (``RenderContext/frameRate``). Set it before the first frame.
    public var frameRate: Rational? {
        get { output.withLock { $0.frameRate } }
        set { output.withLock { $0.frameRate = newValue } }
    }

    /// The input's name, for captions that show it (``RenderContext/inputName``).
    public var inputName: String? {
        get { output.withLock { $0.inputName } }
        set { output.withLock { $0.inputName = newValue } }
    }

    /// Tells the chain what it renders, before the first frame: the output's rate, its
    /// number of ticks when known, and where the input is (a path, URL or `-`), shown by
    /// its last part.
    public func describeOutput(frameRate: Rational, ticks: Int?, input location: String) {
        let name: String
        if location == "-" || location.hasPrefix("pipe:") {
            name = "-"
        } else {
            let path = location.split(separator: "?", maxSplits: 1).first.map(String.init) ?? location
            name = path.split(separator: "/").last.map(String.init) ?? location
        }
        output.withLock { $0 = (ticks.map { Double($0) / frameRate.seconds }, frameRate, name) }
    }

    /// The sound's gain at each time of the output, in seconds, from the effects that
    /// change it (``SoundShapingEffect``, a fade); nil when none does. Built once, for the ``duration`` set
    /// now: the encoder calls it for every sample, so it takes no lock and looks
    /// nothing up. Each effect's enable range is ignored: the sound follows the whole chain.
    public var audioGain: (@Sendable (Double) -> Double)? {
        let fades = entries.compactMap { $0.effect as? any SoundShapingEffect }
        guard !fades.isEmpty else { return nil }
        let duration = self.duration
        return { time in fades.reduce(1) { $0 * $1.audioGain(at: time, duration: duration) } }
    }

    /// Colour passes rendered so far, in place and into a new frame.
    private let inPlacePasses = Atomic<Int>(0)
    private let copiedPasses = Atomic<Int>(0)

    /// How many colour (and overlay) passes rendered in place (into the only reference to
    /// a frame's pixels) and how many colour passes into a new frame, since the chain was made. A caller that
    /// hands its frames over should see no copies: each one is a frame's worth of memory
    /// written and one more frame alive (8 MB at 1080p).
    public var colorPasses: (inPlace: Int, copied: Int) {
        (inPlacePasses.load(ordering: .relaxed), copiedPasses.load(ordering: .relaxed))
    }

    /// The layer of each layer pass, in order, as a render at time 0 runs them: where a run
    /// of users' shaders took in the effects between them (``JoiningLayerEffect``), one.
    public var layerPasses: [any LayerEffect] {
        stages(at: 0).compactMap { if case .layer(let l) = $0 { l } else { nil } }
    }

    /// Span of pixels processed by all fused color effects before moving on (fits L1).
    static let span = 1024

    /// Builds a chain from effects. `fuse: false` runs every color effect, and every
    /// layer that could join the next, as its own pass (same bytes; for tests and comparisons).
    public init(_ entries: [Entry], fuse: Bool = true, resources: EffectResources = EffectResources()) {
        self.entries = entries
        self.fuse = fuse
        self.resources = resources
        stages = EffectChain.stages(entries.map(\.effect), fuse: fuse)
    }

    /// Effects grouped into passes: runs of colour effects fused, each layer its own but
    /// for layers that join a later one (``JoiningLayerEffect``).
    private static func stages(_ effects: [any Effect], fuse: Bool) -> [Stage] {
        var stages: [Stage] = []
        // The colour effects since the last layer, fused into one pass when they end: built
        // in place, so a chain of n effects costs n steps (a copy per effect was n²).
        var run: [any ColorEffect] = []
        for effect in effects {
            if let c = effect as? any ColorEffect {
                if !fuse && !run.isEmpty { stages.append(.color(run)); run = [] }
                run.append(c)
            } else if let l = effect as? any LayerEffect {
                if !run.isEmpty { stages.append(.color(run)); run = [] }
                stages.append(.layer(l))
            } else {
                // An effect must be one of the two: dropping one silently would render
                // something other than what was asked for.
                preconditionFailure("\(type(of: effect)) is neither a ColorEffect nor a LayerEffect")
            }
        }
        if !run.isEmpty { stages.append(.color(run)) }
        return fuse ? joined(stages) : stages
    }

    /// Layers that join a later one (a run of users' shaders) become one pass with what
    /// lies between them: colour passes, and layers that keep the frame's size, which the
    /// joined layer runs where the first left the frame (the device's memory).
    private static func joined(_ stages: [Stage]) -> [Stage] {
        var out: [Stage] = []
        var i = 0
        while i < stages.count {
            guard case .layer(var current) = stages[i], current is any JoiningLayerEffect else {
                out.append(stages[i])
                i += 1
                continue
            }
            i += 1
            // Look past the steps between for the next layer that joins; stop at one that cannot be a step.
            while let joining = current as? any JoiningLayerEffect {
                var steps: [JoinedStep] = []
                var j = i
                var next: (any LayerEffect)?
                scan: while j < stages.count {
                    switch stages[j] {
                    case .color(let c): steps.append(.colors(c))
                    case .layer(let l):
                        if l is any JoiningLayerEffect { next = l; break scan }
                        guard !(l is any FallibleEffect), JoinedStep.keepsSize(l) else { break scan }
                        steps.append(.layer(l))
                    }
                    j += 1
                }
                guard let next, let made = joining.joined(withSteps: steps, then: next) else { break }
                current = made
                i = j + 1
            }
            out.append(.layer(current))
        }
        return out
    }

    /// Whether any effect is keyframed or limited to time ranges.
    public var variesInTime: Bool { entries.contains { $0.variesInTime } }

    /// The passes for output time `time`: effects outside their ranges left out, keyframed
    /// ones built with their values then (rebuilt only when the values change).
    private func stages(at time: Double) -> [Stage] {
        guard variesInTime else { return stages }
        var effects: [any Effect] = []
        for (i, entry) in entries.enumerated() {
            if let enable = entry.enable, !enable.contains(time) { continue }
            guard entry.parameters.isAnimated else { effects.append(entry.effect); continue }
            let now = entry.parameters.at(time)
            let values = now.signature
            if let cached = built.withLock({ $0[i] }), cached.values == values {
                effects.append(cached.effect)
                continue
            }
            // Values between validated keys are valid; should an effect refuse one anyway,
            // its first key's rendering stands in.
            let effect = (try? entry.effect.rebuilt(parameters: now, resources: resources)) ?? entry.effect
            built.withLock { $0[i] = (values, effect) }
            effects.append(effect)
        }
        return EffectChain.stages(effects, fuse: fuse)
    }

    /// Parses the command-line chain syntax: effects separated by commas, parameters
    /// as `name=value` after colons, the first parameter optionally positional:
    /// `sepia=0.8,pixelate:size=12:mode=average`, `lut:file=grade.cube`.
    public convenience init(parsing text: String, resources: EffectResources = EffectResources(), fuse: Bool = true) throws(EffectError) {
        var entries: [Entry] = []
        for item in try Self.parse(text, resources: resources) {
            entries.append(Entry(effect: try item.make(item.parameters), parameters: item.parameters, enable: item.enable))
        }
        self.init(entries, fuse: fuse, resources: resources)
    }

    /// The values of the file parameters in `text` (LUT images, overlays), found by the
    /// chain syntax's own rules and without opening any file: what a caller checks
    /// before ``init(parsing:resources:fuse:)`` loads them (the studio keeps them inside
    /// its folder).
    public static func files(in text: String) throws(EffectError) -> [String] {
        try parse(text, resources: nil).flatMap { item in
            item.descriptor.parameters.compactMap { spec -> String? in
                guard case .file = spec.type else { return nil }
                let value = item.parameters.text(spec.name)
                return value.isEmpty ? nil : value
            }
        }
    }

    /// One parsed entry: how to build its effect, its descriptor, parameters and ranges.
    private typealias Item = (make: @Sendable (Parameters) throws(EffectError) -> any Effect, descriptor: EffectDescriptor,
                              parameters: Parameters, enable: TimeRanges?)

    /// The chain syntax: each effect's maker, parameters and enable ranges, nothing built.
    /// A shader file is read (and compiled) here with `resources`; with none (``files(in:)``),
    /// a shader file is itself the file the entry names.
    private static func parse(_ text: String, resources: EffectResources?) throws(EffectError) -> [Item] {
        var parsed: [Item] = []
        // Commas separate effects, but also the components of colours and vectors
        // (`whitepoint:color=1,0.9,0.8`) and keyframes (`amount=0@0,1@2s`,
        // `color=#FF0000@0,#0000FF@2`): a piece that does not start with a letter cannot
        // name an effect, so it continues the previous one.
        // Quoted values (`text='a, b: c'`) keep their commas and colons.
        guard !ChainSyntax.hasOpenQuote(text) else { throw EffectError("a quote (') is not closed in chain '\(text)'") }
        var items: [String] = []
        for piece in ChainSyntax.split(text, on: ",") {
            let trimmed = Substring(piece).trimmingSpaces()
            // A path (`./wave.glsl`, `/srv/glow.glsl`) begins an effect: a shader file.
            let path = trimmed.hasPrefix("./") || trimmed.hasPrefix("../") || trimmed.hasPrefix("/") || trimmed.hasPrefix("~/")
            if let c = trimmed.first, !c.isLetter, !path, !items.isEmpty {
                items[items.count - 1] += "," + trimmed
            } else {
                items.append(String(piece))
            }
        }
        for item in items {
            let item = Substring(item).trimmingSpaces()
            guard !item.isEmpty else { throw EffectError("empty effect in chain '\(text)'") }
            var parts: [String] = []
            for piece in ChainSyntax.split(item, on: ":") {
                // Times hold colons too (enable=0:10-0:20, 2@1:30): a piece that starts
                // with a digit and has no '=' continues the value before it.
                if let c = piece.first, c.isNumber, !piece.contains("="), let last = parts.last, last.contains("="), parts.count > 1 || last.contains("@") || last.hasPrefix("enable=") {
                    parts[parts.count - 1] += ":" + piece
                } else {
                    parts.append(piece)
                }
            }
            var head = parts.removeFirst()
            var given: [(String, String)] = []
            var positional: String?
            var positionalText: Substring?
            if let eq = ChainSyntax.firstEquals(in: head) {
                positionalText = head[head.index(after: eq)...]
                positional = ChainSyntax.unquoted(head[head.index(after: eq)...])
                head = String(head[..<eq])
            }
            let descriptor: EffectDescriptor
            let make: @Sendable (Parameters) throws(EffectError) -> any Effect
            if let type = EffectRegistry.effect(named: head) {
                descriptor = type.descriptor
                make = { (p: Parameters) throws(EffectError) -> any Effect in try type.init(parameters: p, resources: resources ?? EffectResources()) }
            } else if EffectRegistry.namesFile(head) {
                guard let resources else {
                    // Only the names of files are wanted: the shader is one, its image parameters are not known unread.
                    let name = head
                    let file = EffectDescriptor(name: head, category: .stylize, summary: "", parameters: [.file("file", required: true, help: "")])
                    parsed.append(({ _ throws(EffectError) in throw EffectError("\(name): not built") }, file,
                                   try Parameters(parsing: [("file", head)], for: file), nil))
                    continue
                }
                guard let files = EffectRegistry.fileEffects else {
                    throw EffectError("\(head): a shader file; this program was built without vidfx's Shaders library")
                }
                (descriptor, make) = try files.load(head, resources)
            } else {
                throw .unknownEffect(head)
            }
            for (i, part) in parts.enumerated() {
                if let eq = ChainSyntax.firstEquals(in: part) {
                    given.append((String(part[..<eq]), ChainSyntax.unquoted(part[part.index(after: eq)...])))
                } else if i == 0 && positional == nil {
                    positional = ChainSyntax.unquoted(part)
                } else {
                    throw EffectError("\(head): '\(part)' is not name=value")
                }
            }
            // `blur=radius=3`: a named parameter written after '=' (ffmpeg's filters take
            // `gblur=sigma=3`); vidfx names parameters after ':'.
            if let text = positionalText.map(String.init), let eq = ChainSyntax.firstEquals(in: text),
               let named = descriptor.parameter(String(text[..<eq])) {
                guard named.name == descriptor.parameters.first?.name else {
                    throw EffectError("\(head)=\(text): a named parameter comes after ':', as \(head):\(text) "
                                      + "(\(head)=VALUE sets its first parameter, \(descriptor.parameters.first?.name ?? "none"))")
                }
                // `sepia=amount=0.5`: the first parameter, named.
                positional = ChainSyntax.unquoted(text[text.index(after: eq)...])
            }
            if let positional {
                guard let first = descriptor.parameters.first else {
                    throw EffectError("\(head): takes no parameters, got '\(positional)'")
                }
                given.insert((first.name, positional), at: 0)
            }
            // Two words every effect takes: when it runs, and how its keyframes move.
            var enable: TimeRanges?
            var ease = Keyframes.Ease.linear
            if let i = given.firstIndex(where: { $0.0 == "enable" }), descriptor.parameter("enable") == nil {
                enable = try TimeRanges(parsing: given.remove(at: i).1, effect: head)
            }
            if let i = given.firstIndex(where: { $0.0 == "ease" }), descriptor.parameter("ease") == nil {
                let text = given.remove(at: i).1
                guard let e = Keyframes.Ease(rawValue: text.lowercased()) else {
                    throw EffectError("\(head): ease must be one of \(Keyframes.Ease.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
                }
                ease = e
            }
            parsed.append((make, descriptor, try Parameters(parsing: given, for: descriptor, ease: ease), enable))
        }
        return parsed
    }

    /// The size of the frames the chain makes from frames of `width`×`height`.
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        var size = (width: width, height: height)
        for case .layer(let effect) in stages { size = effect.outputSize(width: size.width, height: size.height) }
        return size
    }

    /// What the chain's effects need detected in each frame (run once for all of them).
    public var needs: DetectionNeeds {
        entries.reduce(into: DetectionNeeds()) { $0.formUnion(type(of: $1.effect).needs) }
    }

    /// The chain's redactions (``RedactingEffect``), in order.
    public var redactions: [any RedactingEffect] { entries.compactMap { $0.effect as? any RedactingEffect } }

    /// Whether the chain redacts: a render of it detects for recall and reports what it covered.
    public var redacts: Bool { entries.contains { $0.effect is any RedactingEffect } }

    /// The position of the chain's first redaction, nil when it has none.
    public var firstRedaction: Int? { entries.firstIndex { $0.effect is any RedactingEffect } }

    /// Whether an effect of the chain needs the output's length to render it (a fade out).
    public var needsOutputDuration: Bool {
        entries.contains { ($0.effect as? any SoundShapingEffect)?.needsOutputDuration == true }
    }

    /// Whether an effect of the chain may fail a frame (``FallibleEffect``: a shader).
    public var hasFallibleEffects: Bool { entries.contains { $0.effect is any FallibleEffect } }

    /// Why one of the chain's effects failed on a frame (``FallibleEffect``), nil while
    /// none has: a frame rendered when this is set is not the chain's picture.
    public var failure: String? {
        for entry in entries { if let fallible = entry.effect as? any FallibleEffect, let why = fallible.failure { return why } }
        return nil
    }

    /// True when the chain does nothing.
    public var isEmpty: Bool { entries.isEmpty }

    /// The chain as text that parses back to the same chain, with every parameter.
    public var description: String {
        entries.map { "\($0.effect.descriptor.name):\($0.parameters.summary)" }.joined(separator: ",")
    }

    /// How many of `frame`'s pixels the chain's redactions (``RedactingEffect``) replace at
    /// `time` (the frame's own by default), from the faces it carries: the largest of any
    /// redaction in the chain, 0 when none is on then. For the redaction report.
    public func redactedPixels(in frame: Frame, time: Double? = nil) -> Int {
        var most = 0
        for case .layer(let effect) in stages(at: time ?? frame.time.seconds) {
            guard let redaction = effect as? any RedactingEffect else { continue }
            most = max(most, redaction.redactedPixels(observations: frame.observations, width: frame.width, height: frame.height))
        }
        return most
    }

    /// Renders the chain over `frame`; the result keeps the frame's timing fields.
    public func apply(to frame: Frame, time: Double? = nil) -> Frame {
        var current = frame
        apply(to: &current, time: time)
        return current
    }

    /// Renders the chain over `frame`, replacing it. Colour and overlay passes write in
    /// place when no other frame shares the pixels (one 1080p frame, 8 MB, less in
    /// flight); other layer passes need the whole source, so they render into a new frame.
    public func apply(to frame: inout Frame, time: Double? = nil) {
        let time = time ?? frame.time.seconds
        let facts = output.withLock { $0 }
        for stage in stages(at: time) {
            var context = RenderContext(time: time, width: frame.width, height: frame.height, observations: frame.observations,
                                        duration: facts.duration)
            context.tick = frame.tick
            context.sourceTime = frame.sourceTime.seconds
            context.frameRate = facts.frameRate
            context.inputName = facts.inputName
            if case .color(let effects) = stage, frame.isUniquelyReferenced() {
                let stride = frame.bytesPerRow / 4
                frame.withUnsafeMutableBytes { d in
                    renderColor(effects, from: UnsafePointer(d.baseAddress!.assumingMemoryBound(to: UInt32.self)), stride: stride,
                                into: d.baseAddress!.assumingMemoryBound(to: UInt32.self), stride: stride, context: context)
                }
                inPlacePasses.add(1, ordering: .relaxed)
                continue
            }
            if case .layer(let effect) = stage, let overlay = effect as? any OverlayEffect, frame.isUniquelyReferenced() {
                overlay.prepare(width: frame.width, height: frame.height)
                let stride = frame.bytesPerRow / 4
                frame.withUnsafeMutableBytes { d in
                    overlay.draw(onto: d.baseAddress!.assumingMemoryBound(to: UInt32.self), stride: stride, context: context)
                }
                inPlacePasses.add(1, ordering: .relaxed)
                continue
            }
            if case .layer(let effect) = stage {
                // Layers may change the size (crop); the context describes the output.
                (context.width, context.height) = effect.outputSize(width: frame.width, height: frame.height)
            }
            var out = Frame(width: context.width, height: context.height, pool: pool)
            out.tick = frame.tick
            out.time = frame.time
            out.sourceTime = frame.sourceTime
            out.pass = frame.pass
            out.observations = frame.observations
            switch stage {
            case .color(let effects):
                copiedPasses.add(1, ordering: .relaxed)
                let (srcStride, dstStride) = (frame.bytesPerRow / 4, out.bytesPerRow / 4)
                frame.withUnsafeBytes { s in
                    out.withUnsafeMutableBytes { d in
                        renderColor(effects, from: s.baseAddress!.assumingMemoryBound(to: UInt32.self), stride: srcStride,
                                    into: d.baseAddress!.assumingMemoryBound(to: UInt32.self), stride: dstStride, context: context)
                    }
                }
            case .layer(let effect): renderLayer(effect, from: frame, into: &out, context: context)
            }
            frame = out
        }
    }

    /// One fused pass of colour effects; `src` may be `dst` (in place).
    private func renderColor(_ effects: [any ColorEffect], from src: UnsafePointer<UInt32>, stride srcStride: Int,
                             into dst: UnsafeMutablePointer<UInt32>, stride dstStride: Int, context: RenderContext) {
        ColorPass(effects).render(from: src, stride: srcStride, into: dst, stride: dstStride, context: context)
    }

    private func renderLayer(_ effect: any LayerEffect, from src: Frame, into dst: inout Frame, context: RenderContext) {
        // Per-size state first, on this thread; the bands below only read it.
        effect.prepare(width: src.width, height: src.height)
        let srcStride = src.bytesPerRow / 4, dstStride = dst.bytesPerRow / 4
        src.withUnsafeBytes { s in
            dst.withUnsafeMutableBytes { d in
                let image = SourceImage(base: s.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                        width: src.width, height: src.height, stride: srcStride)
                effect.render(image, into: d.baseAddress!.assumingMemoryBound(to: UInt32.self), destinationStride: dstStride,
                              context: context)
            }
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
