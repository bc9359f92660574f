/// What an effect does to a frame, in the three kinds SwiftUI has for shaders.
public enum EffectKind: String, Sendable, Codable, CaseIterable {
    /// Pixel in, pixel out (may use the pixel's position and the time). Chains of these fuse into one pass.
    case color
    /// May read the whole input frame anywhere.
    case layer
    /// Maps each output position to the source position it shows.
    case distortion
}

/// What an effect is for, as Core Image groups its filters.
public enum EffectCategory: String, Sendable, Codable, CaseIterable {
    /// Tone and colour adjustments and looks.
    case tone
    /// Grading through lookup tables.
    case grading
    /// Artistic styles (posterize, ink, pop art, old film).
    case stylize
    /// Blurs.
    case blur
    /// Geometry: mirrors, tiles, warps, crops.
    case geometry
    /// Generators and compositing (solid colours, overlays).
    case composite
    /// What detection found, drawn or redacted (codes, faces).
    case detection
}

/// The type of a parameter's value.
public enum ParameterType: Sendable, Equatable {
    /// A real number.
    case float
    /// A whole number.
    case int
    /// One of a fixed set of words.
    case choice([String])
    /// A file path (LUTs, images).
    case file
    /// Free text (a caption). In the chain syntax a value holding `:` or `,` is quoted:
    /// `text='Take 2: the pier'`.
    case text
    /// A colour: `#RRGGBB[AA]` or `r,g,b[,a]` with components in 0…1; held as (r, g, b, a).
    case color
    /// A fixed number of reals: `x,y` or `a,b,c,d,tx,ty`.
    case vector(Int)

    /// Short name for tables and JSON.
    public var name: String {
        switch self {
        case .float: "float"
        case .int: "int"
        case .choice: "choice"
        case .file: "file"
        case .text: "text"
        case .color: "color"
        case .vector: "vector"
        }
    }
}

/// A parameter value: a number or a word/path.
public enum ParameterValue: Sendable, Equatable, CustomStringConvertible {
    case number(Double)
    case text(String)
    /// Colours and vectors: the components in order.
    case vector([Double])

    public var description: String {
        switch self {
        case .number(let v): ParameterValue.format(v)
        case .text(let s): s
        case .vector(let v): v.map(ParameterValue.format).joined(separator: ",")
        }
    }

    private static func format(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v) }
}

/// One parameter of an effect: everything the CLI, validation, help and docs need.
public struct ParameterSpec: Sendable {
    /// Name used on the command line (`amount`).
    public let name: String
    /// Value type.
    public let type: ParameterType
    /// Value when not given; nil means the parameter is optional and absent by default.
    public let defaultValue: ParameterValue?
    /// Hard lower bound (values below are rejected), for numbers.
    /// The largest magnitude any number may have, whatever the spec's own range: pixel
    /// positions and sizes beyond it cannot be meant, and would overflow integer pixel maths.
    public static let largestMagnitude: Double = 1_000_000

    public let min: Double?
    /// Hard upper bound (values above are rejected), for numbers.
    public let max: Double?
    /// Suggested range for a slider (within the hard range).
    public let sliderMin: Double?
    /// Suggested range for a slider (within the hard range).
    public let sliderMax: Double?
    /// Unit, when the number has one (`px`, `s`).
    public let unit: String?
    /// One line of help.
    public let help: String
    /// Whether the effect picks the value itself from its other parameters when this one
    /// is not given (faceblur's padding follows its mode): `defaultValue` is then only
    /// what the table shows, and a chain written out leaves the parameter out unless it
    /// was given, so the choice survives a round trip.
    public private(set) var defaultFollowsOthers = false

    /// This parameter with its default picked by the effect from its other parameters
    /// when not given (see ``defaultFollowsOthers``).
    public func defaultFollowingOthers() -> ParameterSpec {
        var spec = self
        spec.defaultFollowsOthers = true
        return spec
    }

    /// This parameter with no default: it must be given (a Metal shader's argument that
    /// has no default value).
    public func withoutDefault() -> ParameterSpec {
        ParameterSpec(name: name, type: type, defaultValue: nil, min: min, max: max, sliderMin: sliderMin, sliderMax: sliderMax,
                      unit: unit, help: help, defaultFollowsOthers: defaultFollowsOthers)
    }

    /// Whether the parameter may be given as keyframes: numbers, colours and vectors.
    public var isAnimatable: Bool {
        switch type {
        case .float, .int, .color, .vector: true
        case .choice, .file, .text: false
        }
    }

    /// A number parameter.
    public static func float(_ name: String, default value: Double, min: Double? = nil, max: Double? = nil,
                             slider: ClosedRange<Double>? = nil, unit: String? = nil, help: String) -> ParameterSpec {
        ParameterSpec(name: name, type: .float, defaultValue: .number(value), min: min, max: max,
                      sliderMin: slider?.lowerBound ?? min, sliderMax: slider?.upperBound ?? max, unit: unit, help: help)
    }

    /// A whole-number parameter.
    public static func int(_ name: String, default value: Int, min: Int? = nil, max: Int? = nil,
                           slider: ClosedRange<Int>? = nil, unit: String? = nil, help: String) -> ParameterSpec {
        ParameterSpec(name: name, type: .int, defaultValue: .number(Double(value)), min: min.map(Double.init), max: max.map(Double.init),
                      sliderMin: (slider?.lowerBound ?? min).map(Double.init), sliderMax: (slider?.upperBound ?? max).map(Double.init),
                      unit: unit, help: help)
    }

    /// A choice among words; the first is the default unless given.
    public static func choice(_ name: String, _ options: [String], default value: String? = nil, help: String) -> ParameterSpec {
        ParameterSpec(name: name, type: .choice(options), defaultValue: .text(value ?? options[0]), min: nil, max: nil,
                      sliderMin: nil, sliderMax: nil, unit: nil, help: help)
    }

    /// A colour, default given as (r, g, b, a) in 0…1.
    public static func color(_ name: String, default value: (Double, Double, Double, Double), help: String) -> ParameterSpec {
        ParameterSpec(name: name, type: .color, defaultValue: .vector([value.0, value.1, value.2, value.3]), min: nil, max: nil,
                      sliderMin: nil, sliderMax: nil, unit: nil, help: help)
    }

    /// A vector of `value.count` reals, each within `min…max` when given.
    public static func vector(_ name: String, default value: [Double], min: Double? = nil, max: Double? = nil,
                              unit: String? = nil, help: String) -> ParameterSpec {
        ParameterSpec(name: name, type: .vector(value.count), defaultValue: .vector(value), min: min, max: max,
                      sliderMin: nil, sliderMax: nil, unit: unit, help: help)
    }

    /// A file path; `required` files have no default.
    public static func file(_ name: String, required: Bool, help: String) -> ParameterSpec {
        ParameterSpec(name: name, type: .file, defaultValue: required ? nil : .text(""), min: nil, max: nil,
                      sliderMin: nil, sliderMax: nil, unit: nil, help: help)
    }

    /// Free text, empty by default unless given.
    public static func text(_ name: String, default value: String = "", help: String) -> ParameterSpec {
        ParameterSpec(name: name, type: .text, defaultValue: .text(value), min: nil, max: nil,
                      sliderMin: nil, sliderMax: nil, unit: nil, help: help)
    }

    /// `0…1`, `≥ 2`, `topLeft|topRight…` or `path`: the valid values, for messages and tables.
    public var rangeDescription: String {
        switch type {
        case .choice(let options): return options.joined(separator: "|")
        case .file: return "path"
        case .text: return "text"
        case .color: return "#RRGGBB[AA]|r,g,b[,a]"
        case .vector(let n):
            let shape = (0..<n).map { _ in "n" }.joined(separator: ",")
            switch (min, max) {
            case let (lo?, hi?): return "\(shape) in \(ParameterValue.number(lo))…\(ParameterValue.number(hi))"
            case let (lo?, nil): return "\(shape) ≥ \(ParameterValue.number(lo))"
            default: return shape
            }
        case .float, .int:
            func f(_ v: Double) -> String { ParameterValue.number(v).description }
            switch (min, max) {
            case let (lo?, hi?): return "\(f(lo))…\(f(hi))"
            case let (lo?, nil): return "≥ \(f(lo))"
            case let (nil, hi?): return "≤ \(f(hi))"
            default: return "any"
            }
        }
    }
}

/// How an effect describes itself (Core Image's attributes, FFmpeg's AVOption table).
public struct EffectDescriptor: Sendable {
    /// CLI name (`sepia`).
    public let name: String
    /// What it is for.
    public let category: EffectCategory
    /// One line saying what it does.
    public let summary: String
    /// Parameters in order; the first may be given positionally (`sepia=0.8`).
    public let parameters: [ParameterSpec]

    /// Parameters that show the effect off when its defaults do nothing visible
    /// (`whitepoint=#FFD8A8`), as Core Image's reference lists sample values; used by
    /// the gallery and shown by `vidfx effects`. Files are left out.
    public let example: String?

    /// Creates a descriptor.
    public init(name: String, category: EffectCategory, summary: String, parameters: [ParameterSpec],
                example: String? = nil) {
        self.name = name
        self.category = category
        self.summary = summary
        self.parameters = parameters
        self.example = example
    }

    /// The parameter called `name`, if any.
    public func parameter(_ name: String) -> ParameterSpec? { parameters.first { $0.name == name } }
}
