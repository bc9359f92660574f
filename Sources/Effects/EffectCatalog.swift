public import Foundation

/// The effect table as JSON, for scripts and pages: what `vidfx effects --json` prints
/// and the studio serves, one object per effect with its parameters' types, ranges and
/// defaults.
public enum EffectCatalog {
    /// The JSON array for `types` (every registered effect by default), pretty-printed
    /// with sorted keys.
    public static func json(_ types: [any Effect.Type] = EffectRegistry.all) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(types.map(EffectJSON.init))
    }

    /// One effect's JSON object, as in ``json(_:)``, from its own descriptor (a shader
    /// file's, which its type does not have): what the studio's page asks for a file.
    public static func json(describing descriptor: EffectDescriptor, kind: EffectKind) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(EffectJSON(descriptor, kind: kind))
    }
}

/// The JSON shape of one effect.
struct EffectJSON: Encodable {
    struct Parameter: Encodable {
        var name: String
        var type: String
        var `default`: String?
        var min: Double?
        var max: Double?
        var sliderMin: Double?
        var sliderMax: Double?
        var unit: String?
        var options: [String]?
        var help: String
        /// Whether it takes keyframes (`0@0,1@2s`).
        var animatable: Bool

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(type, forKey: .type)
            // Numbers stay numbers in JSON; words and paths stay strings.
            if let d = `default` {
                if type == "float" || type == "int", let v = Double(d) {
                    try c.encode(v, forKey: .default)
                } else if type == "color" || type == "vector" {
                    try c.encode(d.split(separator: ",").compactMap { Double($0) }, forKey: .default)
                } else {
                    try c.encode(d, forKey: .default)
                }
            } else {
                try c.encodeNil(forKey: .default)
            }
            try c.encode(min, forKey: .min)
            try c.encode(max, forKey: .max)
            try c.encodeIfPresent(sliderMin, forKey: .sliderMin)
            try c.encodeIfPresent(sliderMax, forKey: .sliderMax)
            try c.encodeIfPresent(unit, forKey: .unit)
            try c.encodeIfPresent(options, forKey: .options)
            try c.encode(help, forKey: .help)
            try c.encode(animatable, forKey: .animatable)
        }

        enum CodingKeys: String, CodingKey { case name, type, `default`, min, max, sliderMin, sliderMax, unit, options, help, animatable }
    }

    var name: String
    var kind: String
    var category: String
    var summary: String
    var parameters: [Parameter]
    var example: String?

    init(_ type: any Effect.Type) {
        self.init(type.descriptor, kind: type.kind)
    }

    init(_ d: EffectDescriptor, kind: EffectKind) {
        name = d.name
        self.kind = kind.rawValue
        category = d.category.rawValue
        summary = d.summary
        example = d.example
        parameters = d.parameters.map { p in
            var options: [String]?
            if case .choice(let o) = p.type { options = o }
            return Parameter(name: p.name, type: p.type.name, default: p.defaultValue?.description, min: p.min, max: p.max,
                             sliderMin: p.sliderMin, sliderMax: p.sliderMax, unit: p.unit, options: options, help: p.help,
                             animatable: p.isAnimatable)
        }
    }
}
