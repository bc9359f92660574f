import Synchronization

/// Every effect, in the order `vidfx effects` lists them. One line per effect.
public enum EffectRegistry {
    /// The effect types.
    public static let all: [any Effect.Type] = [
        Caleido.self,
        HFlip.self,
        VFlip.self,
        Rotate.self,
        Transpose.self,
        Pad.self,
        OldTimes.self,
        Pixelate.self,
        Posterize.self,
        Sepia.self,
        Solarize.self,
        Threshold.self,
        Tiled.self,
        Warhol.self,
        ZoomBlur.self,
        Blur.self,
        Fade.self,
        Sharpen.self,
        LUT.self,
        Exposure.self,
        Gamma.self,
        Hue.self,
        ColorControls.self,
        Vibrance.self,
        ColorMatrix.self,
        Temperature.self,
        ToneCurve.self,
        WhitePoint.self,
        HighlightShadow.self,
        Monochrome.self,
        FalseColor.self,
        ColorThreshold.self,
        Noir.self,
        Vignette.self,
        Text.self,
        Kaleidoscope.self,
        Affine.self,
        Straighten.self,
        Crop.self,
        ConstantColor.self,
        Overlay.self,
        QRBox.self,
        FaceBox.self,
        FaceBlur.self,
    ]

    /// Effects described by a file of their own (users' shaders): what a library that
    /// makes them (Shaders) registers, so that a chain entry naming a file is one.
    public struct FileEffects: Sendable {
        /// Whether a chain entry's head names such a file (`./wave.glsl`, `glow.glsl`).
        public var names: @Sendable (String) -> Bool
        /// The file's effect: its descriptor, and how to build it from parameters checked
        /// against that descriptor. The file is read through the resources' `readFile`
        /// when they have one (the studio's rules), else by its path.
        public var load: @Sendable (_ file: String, _ resources: EffectResources) throws(EffectError)
            -> (descriptor: EffectDescriptor, make: @Sendable (Parameters) throws(EffectError) -> any Effect)

        /// - Parameters:
        ///   - names: whether a head names such a file.
        ///   - load: the file's descriptor and maker.
        public init(names: @escaping @Sendable (String) -> Bool,
                    load: @escaping @Sendable (String, EffectResources) throws(EffectError)
                        -> (descriptor: EffectDescriptor, make: @Sendable (Parameters) throws(EffectError) -> any Effect)) {
            self.names = names
            self.load = load
        }
    }

    /// What makes file effects, once a library has registered (``register(_:)``).
    public static var fileEffects: FileEffects? { registered.withLock { $0 } }

    /// Registers the maker of file effects (the Shaders library's `ShaderEffect.register()`).
    public static func register(_ effects: FileEffects) { registered.withLock { $0 = effects } }

    private static let registered = Mutex<FileEffects?>(nil)

    /// Whether `head` names a shader file, by its form alone (a path, or a shader's
    /// extension): so that without the Shaders library it is refused as one, not as an
    /// unknown effect.
    public static func namesFile(_ head: String) -> Bool {
        if let effects = fileEffects { return effects.names(head) }
        return head.contains("/") || [".glsl", ".frag", ".metal", ".hook"].contains { head.lowercased().hasSuffix($0) }
    }

    /// Their CLI names.
    public static var names: [String] { all.map { $0.descriptor.name } }

    /// The effect type called `name` (case-insensitive).
    public static func effect(named name: String) -> (any Effect.Type)? {
        all.first { $0.descriptor.name == name.lowercased() }
    }
}
