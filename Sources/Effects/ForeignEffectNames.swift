/// Effect names people bring from other tools (ffmpeg's filters, Core Image, GPUImage,
/// ImageMagick), each with what does that job in vidfx: an effect, an option, or the
/// word that vidfx has none yet. An edit distance cannot find these (`blur` is two edits from
/// `lut`), so they are listed.
enum ForeignEffectNames {
    /// The hint for a name vidfx does not have, or nil when it is not a known name.
    static func hint(for name: String) -> String? {
        let key = name.lowercased().filter { $0.isLetter || $0.isNumber }
        return hints[key]
    }

    private static let gaussian = "use 'blur:sigma=…' (a Gaussian, sigma in pixels)"
    private static let box = "use 'blur:mode=box:radius=…'"
    private static let motion = "use 'blur:mode=motion:length=…:angle=…'"
    private static let text = "use 'text:text=…' (templates such as {timecode} are filled in per frame)"
    private static let size = "scaling is an option, not an effect: --size WxH or 720p, with --fit fit|fill|stretch"
    private static let grey = "use 'monochrome' (a tint of the luminance) or 'noir' (black and white with contrast)"

    static let hints: [String: String] = [
        "gblur": gaussian, "gaussianblur": gaussian, "gaussian": gaussian, "cigaussianblur": gaussian, "smartblur": gaussian,
        "boxblur": box, "avgblur": box, "ciboxblur": box, "motionblur": motion, "cimotionblur": motion, "cizoomblur": "use 'zoomblur'",
        "unsharp": "use 'sharpen'", "unsharpmask": "use 'sharpen'", "ciunsharpmask": "use 'sharpen'",
        "cisharpenluminance": "use 'sharpen'", "civignette": "use 'vignette'",
        "drawtext": text, "subtitles": text, "caption": text, "title": text, "timecode": "use 'text:text={timecode}'",
        "citextimagegenerator": text,
        "eq": "use 'colorcontrols' (brightness, contrast, saturation) or 'gamma'",
        "brightness": "use 'colorcontrols:brightness=…' or 'exposure:ev=…'",
        "contrast": "use 'colorcontrols:contrast=…'", "saturation": "use 'colorcontrols:saturation=…'",
        "cicolorcontrols": "use 'colorcontrols'",
        "scale": size, "resize": size, "zscale": size, "scale2ref": size,
        "fps": "the frame rate is an option: --fps N", "framerate": "the frame rate is an option: --fps N",
        "trim": "trimming is an option: --start and --duration",
        "lut3d": "use 'lut:file=….cube'", "haldclut": "use 'lut:file=….cube'", "cicolorcube": "use 'lut:file=….cube'",
        "curves": "use 'tonecurve'", "citonecurve": "use 'tonecurve'",
        "colortemperature": "use 'temperature'", "citemperatureandtint": "use 'temperature'",
        "colorchannelmixer": "use 'colormatrix'", "cicolormatrix": "use 'colormatrix'",
        "grayscale": grey, "greyscale": grey, "gray": grey, "grey": grey, "desaturate": grey, "cicolormonochrome": "use 'monochrome'",
        "cirotate": "use 'rotate=90' (any angle: 'rotate:angle=…:fill=black') or 'straighten:angle=…' (zoomed in, no corners)", "mirror": "use 'hflip' (or 'vflip')",
        "flip": "use 'vflip' (upside down) or 'hflip' (left to right)",
        "pixelize": "use 'pixelate'", "mosaic": "use 'pixelate'", "cipixellate": "use 'pixelate'",
        "deface": "use 'faceblur'", "redact": "use 'faceblur'",
        "tonemap": "HDR input is tone-mapped as it is read: the --tonemap option",
        "afade": "use 'fade': apply fades the sound with the picture", "fadein": "use 'fade:in=…'", "fadeout": "use 'fade:out=…'",
        "negate": "use 'colormatrix' with -1 on the diagonal and a bias of 1",
        "letterbox": "use 'pad:aspect=…' (or 'pad:width=…:height=…')", "pillarbox": "use 'pad:aspect=…'", "expand": "use 'pad:width=…:height=…'",
    ]
}
