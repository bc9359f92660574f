/// Every effect, in the order `vidfx effects` lists them. One line per effect.
public enum EffectRegistry {
    /// The effect types.
    public static let all: [any Effect.Type] = [
        Caleido.self,
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

    /// Their CLI names.
    public static var names: [String] { all.map { $0.descriptor.name } }

    /// The effect type called `name` (case-insensitive).
    public static func effect(named name: String) -> (any Effect.Type)? {
        all.first { $0.descriptor.name == name.lowercased() }
    }
}
