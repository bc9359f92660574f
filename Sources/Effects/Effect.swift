public import FrameCore

/// An effect: a self-describing, immutable recipe built from validated parameters.
///
/// Conform through ``ColorEffect`` or ``LayerEffect`` (which also covers
/// distortions); the renderer owns threading, so an effect only writes row kernels.
/// Adding an effect means one file with its type and one line in ``EffectRegistry``.
public protocol Effect: Sendable {
    /// Name, category, summary and the parameter table; defaults live only there.
    static var descriptor: EffectDescriptor { get }
    /// What must be detected in each frame first (codes, faces); none by default.
    static var needs: DetectionNeeds { get }
    /// Builds the effect from parameters already checked against the descriptor.
    init(parameters: Parameters, resources: EffectResources) throws(EffectError)

    /// This effect's descriptor: its type's, unless the effect is described by a file of
    /// its own (a user's shader, whose parameters are its declarations).
    var descriptor: EffectDescriptor { get }

    /// The same effect with other values for its parameters (a keyframe's): built from its
    /// type by default; a shader keeps its compiled program.
    func rebuilt(parameters: Parameters, resources: EffectResources) throws(EffectError) -> any Effect
}

extension Effect {
    /// The type's descriptor.
    public var descriptor: EffectDescriptor { Self.descriptor }

    /// A new effect of this type from `parameters`.
    public func rebuilt(parameters: Parameters, resources: EffectResources) throws(EffectError) -> any Effect {
        try Self(parameters: parameters, resources: resources)
    }
}

/// Per-frame facts an effect may use.
public struct RenderContext: Sendable {
    /// Frame time in seconds (for animated effects).
    public var time: Double
    /// Frame width in pixels.
    public var width: Int
    /// Frame height in pixels.
    public var height: Int
    /// What detection found in the frame (codes, faces), for effects that draw or
    /// redact it (``Effect/needs``); empty when nothing ran.
    public var observations: [Observation]
    /// The output's length in seconds, when it is known (an offline render's; not a live
    /// preview's): what a fade out ends at.
    public var duration: Double?
    /// The frame's tick on the output cadence (0 for a lone picture).
    public var tick: Int64 = 0
    /// Where in the source the frame was taken, in seconds (the output time, unless a
    /// clip or a speed change moves it).
    public var sourceTime: Double = 0
    /// The output's frame rate, when known (what a timecode counts frames in).
    public var frameRate: Rational?
    /// The input's name (its file name, a URL's last part, `-` for standard input), when known.
    public var inputName: String?

    /// Creates a context.
    public init(time: Double, width: Int, height: Int, observations: [Observation] = [], duration: Double? = nil) {
        self.time = time
        self.width = width
        self.height = height
        self.observations = observations
        self.duration = duration
    }
}

/// A pixel-in, pixel-out effect. Pixels are BGRA8 packed in a `UInt32`
/// (little-endian: `b | g << 8 | r << 16 | a << 24`).
public protocol ColorEffect: Effect {
    /// Transforms `count` pixels of row `y`, starting at column `x`, in place.
    /// Called on many threads at once with disjoint spans; must not allocate.
    func apply(_ pixels: UnsafeMutablePointer<UInt32>, count: Int, x: Int, y: Int, context: RenderContext)
}

/// An effect that may read the whole source frame (layer) or maps each output
/// position to a source position (distortion).
public protocol LayerEffect: Effect {
    /// Builds what depends on the frame size (tables, maps), once per size, before any
    /// render at that size: libavfilter's `config_props`. Called on one thread, never
    /// during a render, so the kernels read what it built without locking.
    func prepare(width: Int, height: Int)

    /// Writes output rows `rows` (each `destinationStride` pixels apart) from `source`.
    /// Called on many threads at once with disjoint row ranges, after
    /// ``prepare(width:height:)`` for the source's size; must not lock or allocate.
    func render(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                rows: Range<Int>, context: RenderContext)

    /// The size of the output for an input of `width`×`height` (the context passed to
    /// ``render(_:into:destinationStride:rows:context:)`` carries it). Most effects keep the size.
    func outputSize(width: Int, height: Int) -> (width: Int, height: Int)

    /// Writes the whole output from `source`, using every core. The default splits the
    /// rows into bands and calls ``render(_:into:destinationStride:rows:context:)`` for
    /// each at once; an effect whose passes cross bands (a separable blur: every row,
    /// then every column) runs its own passes here instead. Called after
    /// ``prepare(width:height:)``, one frame at a time per effect value or several.
    func render(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                context: RenderContext)
}

/// A layer that can take the layer after it into one pass: users' shaders, whose run of
/// several is one copy of the frame to the device and one back instead of one each. The
/// chain asks each such layer about the layer after it, and renders what it returns in
/// place of the two (the same pixels as the two in turn).
public protocol JoiningLayerEffect: LayerEffect {
    /// This effect and then `next` as one layer, or nil when the two cannot be joined.
    func joined(with next: any LayerEffect) -> (any LayerEffect)?

    /// This effect, then `colors` (one ``ColorPass``), then `next` as one layer, or nil
    /// (the default) when they cannot be joined.
    func joined(withColors colors: [any ColorEffect], then next: any LayerEffect) -> (any LayerEffect)?


    /// This effect, then `steps` (the host's work, in turn), then `next` as one layer, or
    /// nil when they cannot be joined. The default joins steps that are all colour passes
    /// through ``joined(withColors:then:)``.
    func joined(withSteps steps: [JoinedStep], then next: any LayerEffect) -> (any LayerEffect)?
}

/// Work of the host's between two joined layers (``JoiningLayerEffect``), on the frame
/// where the first left it.
public enum JoinedStep: Sendable {
    /// Colour effects, one fused pass, in place.
    case colors([any ColorEffect])
    /// A layer that keeps the frame's size (``JoinedStep/keepsSize(_:)``).
    case layer(any LayerEffect)

    /// Whether `layer` gives a frame of the size it is given, at sizes of every shape: a
    /// layer that does not (crop, pad, a transpose) ends a joined run.
    public static func keepsSize(_ layer: any LayerEffect) -> Bool {
        [(1920, 1080), (1080, 1920), (33, 17)].allSatisfy { w, h in layer.outputSize(width: w, height: h) == (w, h) }
    }
}

extension JoiningLayerEffect {
    /// Not joined: colour effects between are a pass of their own.
    public func joined(withColors colors: [any ColorEffect], then next: any LayerEffect) -> (any LayerEffect)? { nil }

    /// Colour passes only, joined as ``joined(withColors:then:)`` joins them; a layer
    /// between ends the run.
    public func joined(withSteps steps: [JoinedStep], then next: any LayerEffect) -> (any LayerEffect)? {
        var colors: [any ColorEffect] = []
        for step in steps {
            guard case .colors(let c) = step else { return nil }
            colors += c
        }
        return colors.isEmpty ? joined(with: next) : joined(withColors: colors, then: next)
    }
}

/// An effect whose frame can fail where it cannot throw (a user's shader on a device
/// that stopped, a frame past its time limit): the frame is then left as it came, and
/// ``failure`` says why, so that a render ends with that line instead of writing it.
public protocol FallibleEffect: Effect {
    /// Why a frame failed (the first failure), nil while none has.
    var failure: String? { get }
}

/// A layer that draws over the picture and leaves every other pixel as it was (text):
/// the chain lets it draw in place on a frame nothing else holds, instead of copying the
/// whole frame to draw a few rows of it (at 1080p the copy, 8 MB each way, cost more
/// than a timecode's shaping and blending).
public protocol OverlayEffect: LayerEffect {
    /// Draws over `pixels` (the frame, `stride` pixels a row, the context's size) in
    /// place, using every core it needs. Called after ``LayerEffect/prepare(width:height:)``.
    func draw(onto pixels: UnsafeMutablePointer<UInt32>, stride: Int, context: RenderContext)
}

extension LayerEffect {
    /// Nothing depends on the size.
    public func prepare(width: Int, height: Int) {}

    /// Bands of rows on all cores, each through ``render(_:into:destinationStride:rows:context:)``.
    public func render(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                       context: RenderContext) {
        renderInBands(source, into: destination, destinationStride: destinationStride, context: context)
    }

    /// The default whole-frame render, for an effect that overrides it to do more around
    /// it (text: the frame in bands, then the lines over it).
    public func renderInBands(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                              context: RenderContext) {
        let base = UInt(bitPattern: destination)
        Bands.run(height: context.height) { rows in
            render(source, into: UnsafeMutablePointer<UInt32>(bitPattern: base)!, destinationStride: destinationStride,
                   rows: rows, context: context)
        }
    }

    /// Same size as the input.
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) { (width, height) }
}

/// Read access to a BGRA frame, with edge-clamped sampling.
public struct SourceImage: @unchecked Sendable {
    /// First pixel.
    public let base: UnsafePointer<UInt32>
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Distance between rows, in pixels.
    public let stride: Int

    /// Creates a view of pixels owned elsewhere (valid only during a render call).
    public init(base: UnsafePointer<UInt32>, width: Int, height: Int, stride: Int) {
        self.base = base
        self.width = width
        self.height = height
        self.stride = stride
    }

    /// Row `y`'s first pixel.
    @inline(__always) public func row(_ y: Int) -> UnsafePointer<UInt32> { base + y * stride }

    /// The pixel at (x, y) with coordinates clamped to the frame (S_near with integer taps).
    @inline(__always) public func clamped(_ x: Int, _ y: Int) -> UInt32 {
        let cx = x < 0 ? 0 : (x >= width ? width - 1 : x)
        let cy = y < 0 ? 0 : (y >= height ? height - 1 : y)
        return base[cy * stride + cx]
    }

    /// Bilinear sample at position (px, py) in pixel units, where pixel centres sit at
    /// +0.5 (S_bil: clamp to edge). Returns (r, g, b) in 0…255 floats.
    @inline(__always) public func bilinear(_ px: Float, _ py: Float) -> (Float, Float, Float) {
        let (r, g, b, _) = bilinearTaps(px, py)
        return (r, g, b)
    }

    /// The four taps of a bilinear read at (px, py) (S_bil: clamped to the edge) and the
    /// fractions between them.
    @inline(__always) func taps(_ px: Float, _ py: Float) -> (UInt32, UInt32, UInt32, UInt32, Float, Float) {
        var ux = px - 0.5, uy = py - 0.5
        ux = ux < 0 ? 0 : (ux > Float(width - 1) ? Float(width - 1) : ux)
        uy = uy < 0 ? 0 : (uy > Float(height - 1) ? Float(height - 1) : uy)
        let x0 = Int(Int32(ux)), y0 = Int(Int32(uy))
        let x1 = x0 + 1 < width ? x0 + 1 : x0, y1 = y0 + 1 < height ? y0 + 1 : y0
        return (base[y0 * stride + x0], base[y0 * stride + x1], base[y1 * stride + x0], base[y1 * stride + x1], ux - Float(x0), uy - Float(y0))
    }

    /// ``bilinear(_:_:)`` plus the four taps ANDed together: alpha 255 there means every
    /// tap is opaque (and the straight mix is the premultiplied one).
    @inline(__always) func bilinearTaps(_ px: Float, _ py: Float) -> (Float, Float, Float, UInt32) {
        let (p00, p10, p01, p11, fx, fy) = taps(px, py)
        // Via Int32: unsigned → float conversion costs several instructions on x86.
        func ch(_ p: UInt32, _ s: UInt32) -> Float { Float(Int32(truncatingIfNeeded: (p >> s) & 0xFF)) }
        func lerp2(_ s: UInt32) -> Float {
            let top = ch(p00, s) + (ch(p10, s) - ch(p00, s)) * fx
            let bottom = ch(p01, s) + (ch(p11, s) - ch(p01, s)) * fx
            return top + (bottom - top) * fy
        }
        return (lerp2(16), lerp2(8), lerp2(0), p00 & p10 & p01 & p11)
    }
}

/// What effects may need from outside: loading images named by parameters (LUT key
/// images, overlays) and reading the files they name. The CLI supplies a loader backed
/// by the decoder; Effects never decodes. A host that takes chains from someone it does
/// not trust (the studio) also says how a named file is read and whether a font may be
/// a path.
public struct EffectResources: Sendable {
    /// Loads an image file as a BGRA frame.
    public var loadImage: (@Sendable (String) throws -> Frame)?

    /// Reads the whole of a file a parameter names (a `.cube` LUT); nil reads the path as
    /// given.
    public var readFile: (@Sendable (String) throws -> [UInt8])?

    /// Whether `text:font=` may name a font file by its path. When false only fontconfig
    /// names are taken: a path could name a FIFO or device, whose open blocks.
    public var fontFilesAllowed: Bool

    /// Creates resources.
    /// - Parameters:
    ///   - loadImage: decodes an image file (nil: effects that need one refuse).
    ///   - readFile: reads a file's bytes (nil: the path as given, by Foundation).
    ///   - fontFilesAllowed: whether a font may be a file's path.
    public init(loadImage: (@Sendable (String) throws -> Frame)? = nil, readFile: (@Sendable (String) throws -> [UInt8])? = nil,
                fontFilesAllowed: Bool = true) {
        self.loadImage = loadImage
        self.readFile = readFile
        self.fontFilesAllowed = fontFilesAllowed
    }
}

/// Packing helpers for BGRA in a `UInt32`.
@usableFromInline enum Pixel {
    /// Q(v): round half up and clamp a 0…255 float to a byte, i.e. clamp(⌊v + ½⌋, 0, 255).
    /// Both forms read the whole number from the mantissa (adding 2²³ puts it in the low
    /// bits) rather than use a checked Float→UInt32 conversion, whose trap branch kept
    /// the loops scalar.
    @inline(__always) @usableFromInline static func quantize(_ v: Float) -> UInt32 {
        #if VIDFX_TUNED
        quantizeWithFloor(v)
        #else
        quantizeWithoutFloor(v)
        #endif
    }

    /// Q for tuned builds, which have roundps: a real floor is one instruction.
    @inline(__always) @usableFromInline static func quantizeWithFloor(_ v: Float) -> UInt32 {
        let r = (v + 0.5).rounded(.down)
        let c = r < 0 ? 0 : (r > 255 ? 255 : r)
        return (c + 8_388_608).bitPattern & 0xFF
    }

    /// Q for baseline x86-64, which has no vector floor (`rounded(.down)` became a libm
    /// call per lane): the floor is built from the round-to-nearest as well, one less
    /// where it rounded up. zoomblur 26 → 20 ms a 1080p frame in a portable build; in a
    /// tuned one it cost oldtimes 3.5 ms, hence the two forms.
    @inline(__always) @usableFromInline static func quantizeWithoutFloor(_ v: Float) -> UInt32 {
        let x0 = v + 0.5
        let x = x0 < 0 ? 0 : (x0 > 255 ? 255 : x0)
        let m = x + 8_388_608  // nearest whole number, ties to even, in the low mantissa bits
        let roundedUp: UInt32 = m - 8_388_608 > x ? 1 : 0
        return (m.bitPattern & 0xFF) &- roundedUp
    }

    /// A straight BGRA pixel as premultiplied (b, g, r, a) floats in 0…255: Core Image's
    /// form for mixing, where a clear pixel's colour weighs nothing. Exact for opaque pixels.
    @inline(__always) static func premultiplied(_ p: UInt32) -> SIMD4<Float> {
        SIMD4<Float>(Float(p & 0xFF), Float((p >> 8) & 0xFF), Float((p >> 16) & 0xFF), 255) * (Float(p >> 24) / 255)
    }

    /// A premultiplied mix back to a straight BGRA pixel (clear where alpha is 0).
    @inline(__always) static func unpremultiplied(_ v: SIMD4<Float>) -> UInt32 {
        guard v[3] > 0 else { return 0 }
        let k = 255 / v[3]
        return quantize(v[3]) << 24 | quantize(v[2] * k) << 16 | quantize(v[1] * k) << 8 | quantize(v[0] * k)
    }

    @inline(__always) @usableFromInline static func pack(r: UInt32, g: UInt32, b: UInt32, a: UInt32) -> UInt32 {
        b | g << 8 | r << 16 | a << 24
    }
}

/// What an effect needs detected in each frame before it runs.
public struct DetectionNeeds: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    /// Creates a set from its raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// QR codes and barcodes.
    public static let codes = DetectionNeeds(rawValue: 1)
    /// Faces.
    public static let faces = DetectionNeeds(rawValue: 2)
}

extension Effect {
    /// What must be detected in a frame for this effect (`faceblur` needs faces); none
    /// for most. The caller runs detection once per frame for the whole chain.
    public static var needs: DetectionNeeds { [] }

    /// Colour, layer or distortion: what the effect's protocol says it is (a
    /// ``DistortionEffect`` is a layer effect that maps positions), never written by hand.
    public static var kind: EffectKind {
        if Self.self is any DistortionEffect.Type { return .distortion }
        if Self.self is any LayerEffect.Type { return .layer }
        return .color
    }
}

/// An effect that hides what detection found (faces), whose work is measured: a chain
/// that holds one is a redaction. Its render then detects for recall first (a lower face
/// threshold), checks what the chain up to it left (the recheck), and writes a report of
/// what was covered beside the output. `faceblur` is one; a user's redaction is another,
/// with nothing else to change.
public protocol RedactingEffect: LayerEffect {
    /// Whether what it leaves keeps the head's outline (a blur does; a patch does not):
    /// a redacting render then looks again at each detection frame by default.
    var keepsOutline: Bool { get }
    /// Whether the render's detector also takes small faces, at half its score, for it.
    var takesSmallFaces: Bool { get }
    /// How many pixels of a `width`×`height` frame carrying `observations` it replaces or
    /// blends, computed from the detections without rendering (the report's share).
    func redactedPixels(observations: [Observation], width: Int, height: Int) -> Int
}

/// An effect that shapes the sound as well as the picture (a fade): the encoder applies
/// the chain's gain to every sample at the output time it plays.
public protocol SoundShapingEffect: Effect {
    /// The sound's gain, 0…1, at `time` seconds of an output `duration` long (nil: not known).
    func audioGain(at time: Double, duration: Double?) -> Double
    /// Whether the gain depends on the output's length (a fade out), so that a render must know it.
    var needsOutputDuration: Bool { get }
}
