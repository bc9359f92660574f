/// A parameter's name with the type its value is read as. An effect declares each key
/// once and uses it both in its descriptor (`.float(Key.amount, …)`) and where it reads
/// the value (`parameters[Key.amount]`), so a name cannot be spelt one way in the table
/// and another in the code, nor a whole number read as a colour: either would be a
/// compile error, not a trap in a user's render.
///
/// ```swift
/// private enum Key { static let amount = ParameterKey<Double>("amount") }
/// static let descriptor = EffectDescriptor(name: "sepia", …, parameters: [.float(Key.amount, default: 1, min: 0, max: 1, help: "…")])
/// init(parameters: Parameters, resources: EffectResources) { amount = parameters[Key.amount] }
/// ```
public struct ParameterKey<Value: Sendable>: Sendable, Hashable {
    /// The parameter's name, as the chain spells it.
    public let name: String

    /// The key named `name`.
    public init(_ name: String) { self.name = name }
}

/// The options of a typed choice (``ParameterSpec/choice(_:default:help:)``): an
/// enumeration whose cases are the options, spelt as the chain spells them, the first
/// the default unless another is given. Its descriptor lists them from `allCases`, so the
/// table and the code cannot disagree, and the value read is a case, never a string to
/// compare.
public protocol ChoiceOption: RawRepresentable, CaseIterable, Sendable where RawValue == String {}

extension Parameters {
    /// A typed choice's value: the case the chain chose.
    public subscript<Option: ChoiceOption>(key: ParameterKey<Option>) -> Option {
        // The parser admits only the descriptor's options, which are the cases; a key of
        // another descriptor is recorded (``Parameters/unreadKeys``) and reads the first.
        Option(rawValue: text(key.name)) ?? Option.allCases.first!
    }

    /// A number parameter's value.
    public subscript(key: ParameterKey<Double>) -> Double { double(key.name) }
    /// A whole-number parameter's value.
    public subscript(key: ParameterKey<Int>) -> Int { int(key.name) }
    /// A choice or file parameter's value.
    public subscript(key: ParameterKey<String>) -> String { text(key.name) }
    /// A colour's or vector's components.
    public subscript(key: ParameterKey<[Double]>) -> [Double] { vector(key.name) }
}

extension ParameterSpec {
    /// A number parameter named by `key`.
    public static func float(_ key: ParameterKey<Double>, default value: Double, min: Double? = nil, max: Double? = nil,
                             slider: ClosedRange<Double>? = nil, unit: String? = nil, help: String) -> ParameterSpec {
        float(key.name, default: value, min: min, max: max, slider: slider, unit: unit, help: help)
    }

    /// A typed choice named by `key`: its options are `Option`'s cases, the first the
    /// default unless `value` is given.
    public static func choice<Option: ChoiceOption>(_ key: ParameterKey<Option>, default value: Option? = nil, help: String) -> ParameterSpec {
        choice(key.name, Option.allCases.map(\.rawValue), default: value?.rawValue, help: help)
    }

    /// A whole-number parameter named by `key`.
    public static func int(_ key: ParameterKey<Int>, default value: Int, min: Int? = nil, max: Int? = nil,
                           slider: ClosedRange<Int>? = nil, unit: String? = nil, help: String) -> ParameterSpec {
        int(key.name, default: value, min: min, max: max, slider: slider, unit: unit, help: help)
    }

    /// A choice named by `key`; the first option is the default unless given.
    public static func choice(_ key: ParameterKey<String>, _ options: [String], default value: String? = nil, help: String) -> ParameterSpec {
        choice(key.name, options, default: value, help: help)
    }

    /// A colour named by `key`.
    public static func color(_ key: ParameterKey<[Double]>, default value: (Double, Double, Double, Double), help: String) -> ParameterSpec {
        color(key.name, default: value, help: help)
    }

    /// A vector named by `key`.
    public static func vector(_ key: ParameterKey<[Double]>, default value: [Double], min: Double? = nil, max: Double? = nil,
                              unit: String? = nil, help: String) -> ParameterSpec {
        vector(key.name, default: value, min: min, max: max, unit: unit, help: help)
    }

    /// A file named by `key`.
    public static func file(_ key: ParameterKey<String>, required: Bool, help: String) -> ParameterSpec {
        file(key.name, required: required, help: help)
    }

    /// Free text, named by its key.
    public static func text(_ key: ParameterKey<String>, default value: String = "", help: String) -> ParameterSpec {
        text(key.name, default: value, help: help)
    }
}
