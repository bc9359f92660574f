public import Effects

/// The effect chain of a preview, changed while it plays: ←/→ choose an effect and
/// ↑/↓ move its first parameter through its range.
///
/// A chain of two or more effects keeps its effects; ←/→ choose which one ↑/↓ adjust.
/// With one effect or none, ←/→ step through presets instead: no effect, then every
/// registered effect at its defaults (starting from the one given).
public struct LiveChain: Sendable {
    /// One effect and its current parameter values.
    struct Item: Sendable {
        var name: String
        var values: [String: ParameterValue]
        /// Keyframed parameters, until ↑/↓ set one to a value.
        var tracks: [String: Keyframes] = [:]
        /// When the effect runs (kept through adjustments).
        var enable: TimeRanges?
    }

    private var items: [Item]
    private var presets: [Item]?
    private var presetIndex = 0
    /// The effect ↑/↓ act on.
    private var selected = 0
    /// The chain for the current state.
    public private(set) var chain: EffectChain?
    private let resources: EffectResources

    /// Starts from `chain` (nil or empty for none).
    public init(_ chain: EffectChain?, resources: EffectResources = EffectResources()) {
        let items = (chain?.entries ?? []).map { entry in
            let d = type(of: entry.effect).descriptor
            var values: [String: ParameterValue] = [:]
            // A default the effect picks from the others (faceblur's padding) stays unset
            // unless given, so it keeps following them as the keys change the others.
            for spec in d.parameters where !spec.defaultFollowsOthers || entry.parameters.isGiven(spec.name) {
                switch spec.type {
                case .float, .int: values[spec.name] = .number(entry.parameters.double(spec.name))
                case .choice, .file, .text: values[spec.name] = .text(entry.parameters.text(spec.name))
                case .color, .vector: values[spec.name] = .vector(entry.parameters.vector(spec.name))
                }
            }
            return Item(name: d.name, values: values, tracks: entry.parameters.tracks, enable: entry.enable)
        }
        self.items = items
        self.resources = resources
        self.chain = chain
        if items.count <= 1 {
            // Presets: none, then each effect that needs no file, at its defaults.
            var list = [Item(name: "none", values: [:])]
            for type in EffectRegistry.all where type.descriptor.parameters.allSatisfy({ $0.defaultValue != nil }) {
                list.append(Item(name: type.descriptor.name, values: [:]))
            }
            if let first = items.first {
                if let i = list.firstIndex(where: { $0.name == first.name }) { list[i] = first } else { list.append(first) }
                presetIndex = list.firstIndex { $0.name == first.name } ?? 0
            }
            presets = list
        } else {
            presets = nil
        }
    }

    /// A line describing what ↑/↓ act on, e.g. `2/3 posterize levels=6`.
    public var caption: String {
        guard let item = current else { return "no effect" }
        let position = presets == nil ? "\(selected + 1)/\(items.count) " : ""
        guard let spec = EffectRegistry.effect(named: item.name)?.descriptor.parameters.first else { return position + item.name }
        let value = item.values[spec.name] ?? spec.defaultValue
        return position + "\(item.name) \(spec.name)=\(value.map(Self.format) ?? "?")"
    }

    /// ← (-1) or → (+1).
    public mutating func step(_ delta: Int) throws(EffectError) {
        if let presets {
            presetIndex = (presetIndex + delta + presets.count) % presets.count
            items = presets[presetIndex].name == "none" ? [] : [presets[presetIndex]]
            try rebuild()
        } else if !items.isEmpty {
            selected = (selected + delta + items.count) % items.count
        }
    }

    /// ↑ (+1) or ↓ (-1): the first parameter moves a twentieth of its slider range
    /// (at least 1 for whole numbers), or to the next choice, and stays in range.
    public mutating func adjust(_ delta: Int) throws(EffectError) {
        let index = presets == nil ? selected : 0
        guard index < items.count, let descriptor = EffectRegistry.effect(named: items[index].name)?.descriptor,
              let spec = descriptor.parameters.first else { return }
        let currentValue = items[index].values[spec.name] ?? spec.defaultValue
        let newValue: ParameterValue
        switch spec.type {
        case .float, .int:
            guard case .number(let v)? = currentValue else { return }
            let low = spec.sliderMin ?? spec.min ?? 0, high = spec.sliderMax ?? spec.max ?? max(1, v * 2)
            var step = (high - low) / 20
            if case .int = spec.type { step = max(1, step.rounded()) }
            var next = v + Double(delta) * step
            if case .int = spec.type { next = next.rounded() }
            next = Swift.min(Swift.max(next, spec.min ?? low), spec.max ?? high)
            newValue = .number((next * 1e6).rounded() / 1e6)
        case .choice(let options):
            guard case .text(let t)? = currentValue, let i = options.firstIndex(of: t) else { return }
            newValue = .text(options[(i + delta + options.count) % options.count])
        case .file, .text, .color, .vector:
            return
        }
        items[index].values[spec.name] = newValue
        items[index].tracks[spec.name] = nil  // the value shown replaces its keys
        if presets != nil { presets?[presetIndex] = items[index] }  // kept when stepping away and back
        try rebuild()
    }

    // MARK: Internals

    private var current: Item? {
        if presets != nil { return items.first }
        return items.isEmpty ? nil : items[selected]
    }

    private mutating func rebuild() throws(EffectError) {
        var entries: [EffectChain.Entry] = []
        for item in items {
            guard let type = EffectRegistry.effect(named: item.name) else { continue }
            let parameters = try Parameters(item.values, tracks: item.tracks, for: type.descriptor)
            entries.append(EffectChain.Entry(effect: try type.init(parameters: parameters, resources: resources), parameters: parameters,
                                             enable: item.enable))
        }
        chain = entries.isEmpty ? nil : EffectChain(entries, resources: resources)
    }

    private static func format(_ value: ParameterValue) -> String {
        guard case .number(let v) = value else { return value.description }
        if v == v.rounded() { return String(Int64(v)) }
        var s = String(format2(v))
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }

    private static func format2(_ v: Double) -> String {
        let scaled = (v * 1000).rounded()
        let whole = Int64(scaled / 1000), frac = Int64(abs(scaled).truncatingRemainder(dividingBy: 1000))
        let sign = v < 0 && whole == 0 ? "-" : ""
        let digits = String(frac)
        return "\(sign)\(whole)." + String(repeating: "0", count: 3 - digits.count) + digits
    }
}
