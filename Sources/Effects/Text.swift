import CTextStack
import Foundation
import FrameCore
import Synchronization

/// Draws a line or more of text on the picture: a title, a caption, a burnt-in timecode.
/// Shaped by HarfBuzz (ligatures, Arabic joining, Indic reordering, right-to-left runs
/// in visual order) and rasterised by FreeType, in a font fontconfig finds by name.
///
/// Templates in the text are filled in for every frame: `{time}` and `{source_time}`
/// (H:MM:SS.mmm of the output and of the source), `{timecode}` (HH:MM:SS:FF, frames
/// counted at the output's rate, non-drop: 1.5 s at 30 fps is `00:00:01:15`), `{tick}`,
/// `{file}` (the input's name) and `{date}` (the day of the render, YYYY-MM-DD); `{{`
/// and `}}` stand for braces, `\n` starts a new line. Each glyph is rasterised once and
/// kept, so a changing timecode costs its shaping and its blending only.
///
/// Drawn over the frame with straight-alpha *over* on the encoded values, as ffmpeg's
/// `drawtext` blends: the box first, then the shadow, the outline and the text.
public struct Text: OverlayEffect {
    public static let descriptor = EffectDescriptor(
        name: "text", category: .composite, summary: "Draw text on the picture: a caption, a title, a burnt-in timecode.",
        parameters: [
            .text(Key.text, default: "{timecode}",
                  help: "The text; {time} {timecode} {tick} {source_time} {file} {date} are filled in per frame, \\n starts a line."),
            .text(Key.font, default: "DejaVu Sans", help: "A fontconfig name (DejaVu Sans:bold, Lohit Devanagari) or a font file's path."),
            .float(Key.size, default: 0, min: 0, max: 2000, slider: 0...300, unit: "px",
                   help: "The text's size (em) in pixels; 0: a twentieth of the frame's height."),
            .color(Key.color, default: (1, 1, 1, 1), help: "The text's colour."),
            .choice(Key.anchor,
                    help: "Where in the frame the text sits."),
            .float(Key.margin, default: 0.5, min: 0, max: 50, unit: "em", help: "Space between the text (its box, if any) and the frame's edges."),
            .float(Key.x, default: 0, min: -100_000, max: 100_000, unit: "px", help: "Moves the text inwards from the anchor (from the centre: rightwards)."),
            .float(Key.y, default: 0, min: -100_000, max: 100_000, unit: "px", help: "Moves the text inwards from the anchor (from the centre: downwards)."),
            .choice(Key.align, help: "How lines line up with each other; anchor: as the anchor's side."),
            .float(Key.outline, default: 0, min: 0, max: 100, unit: "px", help: "Width of an outline around each glyph; 0: none."),
            .color(Key.outlineColor, default: (0, 0, 0, 1), help: "The outline's colour."),
            .float(Key.shadow, default: 0, min: 0, max: 200, unit: "px", help: "Offset of a shadow down and to the right; 0: none."),
            .color(Key.shadowColor, default: (0, 0, 0, 0.6), help: "The shadow's colour."),
            .color(Key.box, default: (0, 0, 0, 0), help: "Colour of a box behind the text; transparent (the default): no box."),
            .float(Key.padding, default: 0.25, min: 0, max: 10, unit: "em", help: "Space between the text and its box's edges."),
        ],
        example: "text:text='Take 2 · {timecode}':anchor=bottom:size=48:box=#00000099"
    )

    /// The parameters' names and types, for the descriptor and the reads.
    /// Where the block sits in the frame.
    enum Anchor: String, ChoiceOption { case topleft, top, topright, left, center, right, bottomleft, bottom, bottomright }
    /// How lines line up with each other; `anchor`: as the anchor's side.
    enum Align: String, ChoiceOption { case anchor, left, center, right }

    private enum Key {
        static let text = ParameterKey<String>("text")
        static let font = ParameterKey<String>("font")
        static let size = ParameterKey<Double>("size")
        static let color = ParameterKey<[Double]>("color")
        static let anchor = ParameterKey<Anchor>("anchor")
        static let margin = ParameterKey<Double>("margin")
        static let x = ParameterKey<Double>("x")
        static let y = ParameterKey<Double>("y")
        static let align = ParameterKey<Align>("align")
        static let outline = ParameterKey<Double>("outline")
        static let outlineColor = ParameterKey<[Double]>("outlinecolor")
        static let shadow = ParameterKey<Double>("shadow")
        static let shadowColor = ParameterKey<[Double]>("shadowcolor")
        static let box = ParameterKey<[Double]>("box")
        static let padding = ParameterKey<Double>("padding")
    }

    private let lines: [[Piece]]
    private let fontFile: String
    private let size: Double
    private let color: Paint
    private let anchor: Anchor
    private let margin: Double
    private let offset: (x: Double, y: Double)
    private let align: Align
    private let outline: Double
    private let outlineColor: Paint
    private let shadow: Double
    private let shadowColor: Paint
    private let box: Paint
    private let padding: Double
    private let date: String
    /// The font at each pixel size drawn so far (one, unless the frame size changes).
    private let fonts: FontShelf
    /// The font asked for, for finding others like it that have what it lacks.
    private let fontPattern: String
    /// Fonts for the characters the font lacks.
    private let fallbacks = FallbackFonts()

    public init(parameters: Parameters, resources: EffectResources) throws(EffectError) {
        var text = parameters[Key.text]
        text = text.split(separator: "\\n", omittingEmptySubsequences: false).joined(separator: "\n")
        lines = try text.split(separator: "\n", omittingEmptySubsequences: false).map { line throws(EffectError) in try Text.pieces(of: String(line)) }
        if !resources.fontFilesAllowed, parameters[Key.font].contains("/") {
            throw EffectError("text: font '\(parameters[Key.font])': name a fontconfig font (DejaVu Sans); font files are not read here")
        }
        fontFile = try Text.findFont(parameters[Key.font])
        size = parameters[Key.size]
        color = Paint(parameters[Key.color])
        anchor = parameters[Key.anchor]
        margin = parameters[Key.margin]
        offset = (parameters[Key.x], parameters[Key.y])
        align = parameters[Key.align]
        outline = parameters[Key.outline]
        outlineColor = Paint(parameters[Key.outlineColor])
        shadow = parameters[Key.shadow]
        shadowColor = Paint(parameters[Key.shadowColor])
        box = Paint(parameters[Key.box])
        padding = parameters[Key.padding]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        date = formatter.string(from: Date())
        fonts = FontShelf(file: fontFile)
        fontPattern = parameters[Key.font]
        // Open it now, so that a file that is not a font fails here, in one line.
        _ = try fonts.font(pixels: 16)
    }

    // MARK: Templates

    /// A piece of a line: words as written, or a field filled in per frame.
    enum Piece: Equatable {
        case literal(String)
        case field(Field)
    }

    /// The templates a text may hold.
    enum Field: String, CaseIterable {
        case time, timecode, tick, source_time, file, date
    }

    /// A line cut into words and fields; `{{` and `}}` are braces.
    static func pieces(of line: String) throws(EffectError) -> [Piece] {
        var pieces: [Piece] = []
        var literal = ""
        var i = line.startIndex
        while i < line.endIndex {
            let c = line[i]
            let next = line.index(after: i)
            if c == "{", next < line.endIndex, line[next] == "{" { literal.append("{"); i = line.index(after: next); continue }
            if c == "}", next < line.endIndex, line[next] == "}" { literal.append("}"); i = line.index(after: next); continue }
            if c == "}" { throw EffectError("text: a '}' closes no template in '\(line)' (write }} for a brace)") }
            guard c == "{" else { literal.append(c); i = next; continue }
            guard let close = line[next...].firstIndex(of: "}") else {
                throw EffectError("text: a '{' is not closed in '\(line)' (write {{ for a brace)")
            }
            let name = String(line[next..<close])
            guard let field = Field(rawValue: name.lowercased()) else {
                var message = "text: unknown template {\(name)}; the templates are " + Field.allCases.map { "{\($0.rawValue)}" }.joined(separator: " ")
                if let guess = EffectError.closest(to: name, in: Field.allCases.map(\.rawValue)) { message += " (did you mean {\(guess)}?)" }
                throw EffectError(message)
            }
            if !literal.isEmpty { pieces.append(.literal(literal)); literal = "" }
            pieces.append(.field(field))
            i = line.index(after: close)
        }
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        return pieces
    }

    /// `seconds` as H:MM:SS.mmm.
    static func clock(_ seconds: Double) -> String {
        let millis = Int64((max(seconds, 0) * 1000).rounded())
        let (h, m, s, ms) = (millis / 3_600_000, millis / 60_000 % 60, millis / 1000 % 60, millis % 1000)
        return "\(h):" + two(m) + ":" + two(s) + "." + String(String(ms + 1000).dropFirst())
    }

    /// Frame `tick` at `rate` as HH:MM:SS:FF, counting `rate` rounded frames a second
    /// (non-drop: 29.97 fps counts 30).
    static func timecode(tick: Int64, rate: Double) -> String {
        let perSecond = max(Int64(rate.rounded()), 1)
        let tick = max(tick, 0)
        let seconds = tick / perSecond
        return two(seconds / 3600) + ":" + two(seconds / 60 % 60) + ":" + two(seconds % 60) + ":" + two(tick % perSecond)
    }

    private static func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }

    /// The lines with this frame's fields filled in.
    func lines(for context: RenderContext) -> [String] {
        lines.map { pieces in
            pieces.map { piece in
                switch piece {
                case .literal(let text): return text
                case .field(.time): return Text.clock(context.time)
                case .field(.source_time): return Text.clock(context.sourceTime)
                case .field(.tick): return String(context.tick)
                case .field(.timecode):
                    // Without a known rate (a live preview of a still), whole seconds' frames at 30.
                    if let rate = context.frameRate { return Text.timecode(tick: context.tick, rate: rate.seconds) }
                    return Text.timecode(tick: Int64((context.time * 30).rounded(.down)), rate: 30)
                case .field(.file): return context.inputName ?? ""
                case .field(.date): return date
                }
            }.joined()
        }
    }

    // MARK: Fonts

    /// The font file for a fontconfig name (or the path given), or why there is none.
    static func findFont(_ pattern: String) throws(EffectError) -> String {
        guard !pattern.isEmpty else { throw EffectError("text: font is empty (a fontconfig name such as 'DejaVu Sans', or a file)") }
        var file = [CChar](repeating: 0, count: 4096)
        var family = [CChar](repeating: 0, count: 256)
        var error = [CChar](repeating: 0, count: 512)
        guard vfx_font_find(pattern, &file, file.count, &family, family.count, &error, error.count) == 0 else {
            throw EffectError("text: font '\(pattern)': \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        return String(decoding: file.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The pixel size drawn in a frame `height` rows tall.
    private func pixels(height: Int) -> Double { size > 0 ? size : max((Double(height) / 20).rounded(), 8) }

    // MARK: Rendering

    public func prepare(width: Int, height: Int) {
        _ = try? fonts.font(pixels: pixels(height: height))
    }

    public func render(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                       rows: Range<Int>, context: RenderContext) {
        for y in rows {
            (destination + y * destinationStride).update(from: source.row(y), count: source.width)
        }
    }

    public func render(_ source: SourceImage, into destination: UnsafeMutablePointer<UInt32>, destinationStride: Int,
                       context: RenderContext) {
        renderInBands(source, into: destination, destinationStride: destinationStride, context: context)
        draw(onto: destination, stride: destinationStride, context: context)
    }

    public func draw(onto frame: UnsafeMutablePointer<UInt32>, stride: Int, context: RenderContext) {
        guard let font = try? fonts.font(pixels: pixels(height: context.height)) else { return }
        let canvas = Canvas(base: frame, width: context.width, height: context.height, stride: stride)
        draw(lines(for: context), font: font, on: canvas)
    }

    /// One line shaped: in runs of one font and one direction each, the font asked for
    /// wherever it has the characters and another that has them (as fontconfig finds)
    /// where it does not. Directions are the Unicode bidi algorithm's (FriBidi): each run
    /// is shaped in its resolved direction and the runs are placed in visual order (rule
    /// L2), so a Hebrew word inside a Latin line, or digits and Latin inside Arabic, read
    /// right. A mark stays with the character it marks; a run goes on while its font has
    /// the next character at the same level (so the spaces between two words of a script
    /// keep them in one run, in their order).
    func layout(_ line: String, font primary: ShapedFont) -> ShapedFont.Line {
        let scalars = Array(line.unicodeScalars)
        let levels = Self.bidiLevels(scalars)
        var runs: [(font: ShapedFont, text: String.UnicodeScalarView, level: Int8)] = []
        for (i, scalar) in scalars.enumerated() {
            let level = levels?[i] ?? -1
            let attached = switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark, .format: true
            default: scalar.properties.isVariationSelector
            }
            if let last = runs.last, attached || (last.level == level && last.font.covers(scalar)) {
                runs[runs.count - 1].text.append(scalar)
                continue
            }
            let font = primary.covers(scalar) ? primary : (fallbacks.font(for: scalar, like: fontPattern, pixels: primary.pixels) ?? primary)
            if let last = runs.last, last.font === font, last.level == level {
                runs[runs.count - 1].text.append(scalar)
            } else {
                runs.append((font, String.UnicodeScalarView([scalar]), level))
            }
        }
        var out = ShapedFont.Line()
        for index in Self.visualOrder(runs.map(\.level)) {
            let run = runs[index]
            let shaped = run.font.shape(String(run.text), rightToLeft: run.level < 0 ? nil : run.level & 1 == 1, outline: outline)
            out.glyphs += shaped.glyphs.map { ShapedFont.Placed(fill: $0.fill, outline: $0.outline, x: $0.x + out.width, y: $0.y) }
            out.width += shaped.width
        }
        return out
    }

    /// The bidi level of each character of a line (FriBidi), all 0 without a search when
    /// no character can be right to left (below U+0590: Latin, Greek, Cyrillic, digits…,
    /// as a timecode is); nil when FriBidi cannot be loaded (each run's direction is then
    /// guessed from its script, and runs stay in the order written).
    static func bidiLevels(_ scalars: [Unicode.Scalar]) -> [Int8]? {
        guard scalars.contains(where: { $0.value >= 0x0590 }) else { return [Int8](repeating: 0, count: scalars.count) }
        var levels = [Int8](repeating: 0, count: scalars.count)
        let text = scalars.map(\.value)
        let base = text.withUnsafeBufferPointer { t in
            levels.withUnsafeMutableBufferPointer { vfx_bidi_levels(t.baseAddress, Int32(t.count), $0.baseAddress) }
        }
        return base < 0 ? nil : levels
    }

    /// The order to place runs of these levels in, left to right (rule L2: from the
    /// highest level down to the lowest odd one, each stretch of runs at that level or
    /// above is reversed). Levels below 0 (unknown) keep the order written.
    static func visualOrder(_ levels: [Int8]) -> [Int] {
        var order = Array(levels.indices)
        guard let highest = levels.max(), let lowest = levels.min(), lowest >= 0, highest > 0 else { return order }
        var level = highest
        while level >= lowest | 1 {
            var i = 0
            while i < order.count {
                guard levels[order[i]] >= level else { i += 1; continue }
                var j = i
                while j < order.count && levels[order[j]] >= level { j += 1 }
                order[i..<j].reverse()
                i = j
            }
            level -= 1
        }
        return order
    }

    /// Lays out `lines` and blends them onto `canvas`.
    func draw(_ lines: [String], font: ShapedFont, on canvas: Canvas) {
        let laid = lines.map { layout($0, font: font) }
        guard !laid.isEmpty else { return }
        let em = font.pixels
        // The block: the widest line by the lines' height, from the first ascender to the last descender.
        let blockWidth = laid.map(\.width).max() ?? 0
        let blockHeight = font.ascender - font.descender + Double(laid.count - 1) * font.lineHeight
        let pad = box.alpha > 0 ? padding * em : 0
        let edge = margin * em + pad
        let (w, h) = (Double(canvas.width), Double(canvas.height))
        let horizontal: Align
        var left: Double
        switch anchor {
        case .topright, .right, .bottomright: left = w - edge - blockWidth - offset.x; horizontal = .right
        case .top, .center, .bottom: left = (w - blockWidth) / 2 + offset.x; horizontal = .center
        case .topleft, .left, .bottomleft: left = edge + offset.x; horizontal = .left
        }
        var top: Double
        switch anchor {
        case .bottomleft, .bottom, .bottomright: top = h - edge - blockHeight - offset.y
        case .left, .center, .right: top = (h - blockHeight) / 2 + offset.y
        case .topleft, .top, .topright: top = edge + offset.y
        }
        left = left.rounded()
        top = top.rounded()
        let alignment = align == .anchor ? horizontal : align

        if box.alpha > 0 {
            canvas.fill(x0: Int((left - pad).rounded()), y0: Int((top - pad).rounded()),
                        x1: Int((left + blockWidth + pad).rounded()), y1: Int((top + blockHeight + pad).rounded()), paint: box)
        }
        // Coverage of every glyph on one mask per layer (the larger of overlapping
        // coverages), so that joined or kerned glyphs do not blend twice where they meet.
        let reach = Int(outline.rounded(.up)) + 2
        let maskX = Int(left) - reach, maskY = Int(top) - reach
        let mask = Mask(x: maskX, y: maskY, width: Int(blockWidth.rounded(.up)) + 2 * reach + Int(em),
                        height: Int(blockHeight.rounded(.up)) + 2 * reach + Int(em))
        let outlineMask = outline > 0 ? Mask(x: mask.x, y: mask.y, width: mask.width, height: mask.height) : nil
        for (n, line) in laid.enumerated() {
            let shift: Double = switch alignment {
            case .right: blockWidth - line.width
            case .center: ((blockWidth - line.width) / 2).rounded()
            case .left, .anchor: 0
            }
            let baseline = Int((top + font.ascender + Double(n) * font.lineHeight).rounded())
            for glyph in line.glyphs {
                let x = Int((left + shift + glyph.x).rounded()), y = baseline - Int(glyph.y.rounded())
                mask.add(glyph.fill, x: x, y: y)
                if let outlineMask, let stroke = glyph.outline { outlineMask.add(stroke, x: x, y: y) }
            }
        }
        if shadow > 0 {
            let d = Int(shadow.rounded())
            canvas.blend(outlineMask ?? mask, dx: d, dy: d, paint: shadowColor)
        }
        if let outlineMask { canvas.blend(outlineMask, dx: 0, dy: 0, paint: outlineColor) }
        canvas.blend(mask, dx: 0, dy: 0, paint: color)
    }
}

// MARK: - Pieces of the text stack

/// A colour as byte channels and a 0…1 alpha.
struct Paint: Sendable {
    let r: Int32, g: Int32, b: Int32
    let alpha: Float

    init(_ rgba: [Double]) {
        func byte(_ v: Double) -> Int32 { Int32((min(max(v, 0), 1) * 255).rounded()) }
        (r, g, b) = (byte(rgba[0]), byte(rgba[1]), byte(rgba[2]))
        alpha = Float(rgba.count > 3 ? min(max(rgba[3], 0), 1) : 1)
    }
}

/// One glyph's coverage, rasterised once.
final class GlyphImage: Sendable {
    let width: Int, height: Int, left: Int, top: Int
    let pixels: [UInt8]

    init(width: Int, height: Int, left: Int, top: Int, pixels: [UInt8]) {
        (self.width, self.height, self.left, self.top, self.pixels) = (width, height, left, top, pixels)
    }
}

/// Coverage of a region of the frame, 0…255 a pixel.
final class Mask {
    let x: Int, y: Int, width: Int, height: Int
    var pixels: [UInt8]

    init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, max(width, 0), max(height, 0))
        pixels = [UInt8](repeating: 0, count: self.width * self.height)
    }

    /// Adds `glyph` with its pen at (`penX`, `baseline`) in frame coordinates.
    func add(_ glyph: GlyphImage, x penX: Int, y baseline: Int) {
        let gx = penX + glyph.left - x, gy = baseline - glyph.top - y
        let x0 = max(gx, 0), x1 = min(gx + glyph.width, width)
        let y0 = max(gy, 0), y1 = min(gy + glyph.height, height)
        guard x0 < x1, y0 < y1 else { return }
        glyph.pixels.withUnsafeBufferPointer { g in
            pixels.withUnsafeMutableBufferPointer { m in
                for row in y0..<y1 {
                    let src = (row - gy) * glyph.width - gx, dst = row * width
                    for col in x0..<x1 { m[dst + col] = max(m[dst + col], g[src + col]) }
                }
            }
        }
    }
}

/// The frame being drawn on.
struct Canvas {
    let base: UnsafeMutablePointer<UInt32>
    let width: Int, height: Int, stride: Int

    /// `paint` over the frame at `coverage` (0…255): straight-alpha *over* on the
    /// encoded values, the destination's alpha kept as *over* makes it.
    @inline(__always)
    private func put(_ at: UnsafeMutablePointer<UInt32>, _ paint: Paint, coverage: Int32) {
        let sa = paint.alpha * Float(coverage) * (1 / 255 as Float)
        guard sa > 0 else { return }
        let d = at.pointee
        let da = Float((d >> 24) & 0xFF) * (1 / 255 as Float)
        let oa = sa + da * (1 - sa)
        let ks = sa / oa, kd = da * (1 - sa) / oa
        func channel(_ s: Int32, _ shift: UInt32) -> UInt32 {
            roundedByte(Float(s) * ks + Float((d >> shift) & 0xFF) * kd) << shift
        }
        at.pointee = roundedByte(oa * 255) << 24 | channel(paint.r, 16) | channel(paint.g, 8) | channel(paint.b, 0)
    }

    /// A rectangle of `paint` (corners clipped to the frame).
    func fill(x0: Int, y0: Int, x1: Int, y1: Int, paint: Paint) {
        let (x0, x1, y0, y1) = (max(x0, 0), min(x1, width), max(y0, 0), min(y1, height))
        guard x0 < x1, y0 < y1 else { return }
        for y in y0..<y1 {
            let row = base + y * stride
            for x in x0..<x1 { put(row + x, paint, coverage: 255) }
        }
    }

    /// `paint` through `mask`, moved by (`dx`, `dy`).
    func blend(_ mask: Mask, dx: Int, dy: Int, paint: Paint) {
        let ox = mask.x + dx, oy = mask.y + dy
        let x0 = max(ox, 0), x1 = min(ox + mask.width, width)
        let y0 = max(oy, 0), y1 = min(oy + mask.height, height)
        guard x0 < x1, y0 < y1 else { return }
        mask.pixels.withUnsafeBufferPointer { m in
            for y in y0..<y1 {
                let row = base + y * stride
                let src = (y - oy) * mask.width - ox
                for x in x0..<x1 {
                    let c = m[src + x]
                    if c != 0 { put(row + x, paint, coverage: Int32(c)) }
                }
            }
        }
    }
}

/// A font at one pixel size with its glyph cache; shaping and the cache are locked,
/// since FreeType's faces are not thread-safe.
final class ShapedFont: Sendable {
    /// One glyph of a laid-out line: where its pen is (x right, y up from the baseline).
    struct Placed {
        let fill: GlyphImage
        let outline: GlyphImage?
        let x: Double, y: Double
    }

    /// A line's glyphs and its advance.
    struct Line {
        var glyphs: [Placed] = []
        var width: Double = 0
    }

    let pixels: Double
    let ascender: Double, descender: Double, lineHeight: Double
    private let state: Mutex<State>

    private struct State: ~Copyable {
        let font: OpaquePointer
        var glyphs: [UInt64: GlyphImage] = [:]
        var places = [vfx_glyph_place](repeating: vfx_glyph_place(), count: 256)

        deinit { vfx_font_close(font) }
    }

    init(file: String, pixels: Double) throws(EffectError) {
        var error = [CChar](repeating: 0, count: 512)
        guard let font = vfx_font_open(file, pixels, &error, error.count) else {
            throw EffectError("text: \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        var (a, d, l) = (0.0, 0.0, 0.0)
        vfx_font_metrics(font, &a, &d, &l)
        (self.pixels, ascender, descender, lineHeight) = (pixels, a, d, max(l, a - d))
        state = Mutex(State(font: font))
    }

    /// Whether the font has a glyph for `scalar`.
    func covers(_ scalar: Unicode.Scalar) -> Bool {
        state.withLock { vfx_font_covers($0.font, scalar.value) != 0 }
    }

    /// Shapes one run of `text` and finds (or rasterises) its glyphs, with outlines
    /// `outline` wide: right to left or not as the bidi algorithm resolved it, or guessed
    /// from the text when `rightToLeft` is nil.
    func shape(_ text: String, rightToLeft: Bool?, outline: Double) -> Line {
        state.withLock { state in
            let font = state.font
            let direction: Int32 = rightToLeft.map { $0 ? 1 : 0 } ?? -1
            var line = Line()
            let utf8 = Array(text.utf8)
            var count = utf8.withUnsafeBufferPointer { u in
                u.withMemoryRebound(to: CChar.self) { vfx_font_shape(font, $0.baseAddress, Int32(u.count), direction, &state.places, Int32(state.places.count)) }
            }
            if Int(count) > state.places.count {
                state.places = [vfx_glyph_place](repeating: vfx_glyph_place(), count: Int(count))
                count = utf8.withUnsafeBufferPointer { u in
                    u.withMemoryRebound(to: CChar.self) { vfx_font_shape(font, $0.baseAddress, Int32(u.count), direction, &state.places, Int32(state.places.count)) }
                }
            }
            var pen = (x: 0.0, y: 0.0)
            for i in 0..<Int(count) {
                let place = state.places[i]
                if let fill = Self.glyph(place.glyph, outline: 0, in: &state) {
                    let stroke = outline > 0 ? Self.glyph(place.glyph, outline: outline, in: &state) : nil
                    line.glyphs.append(Placed(fill: fill, outline: stroke, x: pen.x + place.x_offset, y: pen.y + place.y_offset))
                }
                pen.x += place.x_advance
                pen.y += place.y_advance
            }
            line.width = pen.x
            return line
        }
    }

    /// A glyph's image from the cache, rasterised on first use; nil when FreeType cannot.
    private static func glyph(_ index: UInt32, outline: Double, in state: inout State) -> GlyphImage? {
        let key = UInt64(index) | UInt64(min(max(outline * 64, 0), 65535).rounded()) << 32
        if let cached = state.glyphs[key] { return cached }
        var image = vfx_glyph_image()
        guard vfx_font_render(state.font, index, outline, &image) == 0 else { return nil }
        defer { vfx_glyph_image_free(&image) }
        let count = Int(image.width) * Int(image.height)
        let pixels = count > 0 ? Array(UnsafeBufferPointer(start: image.pixels, count: count)) : []
        let glyph = GlyphImage(width: Int(image.width), height: Int(image.height), left: Int(image.left), top: Int(image.top), pixels: pixels)
        state.glyphs[key] = glyph
        return glyph
    }
}

/// The fonts of one file, one per pixel size drawn.
final class FontShelf: Sendable {
    private let file: String
    private let sizes = Mutex<[Double: ShapedFont]>([:])

    init(file: String) { self.file = file }

    /// The font at `pixels`, opened on first use.
    func font(pixels: Double) throws(EffectError) -> ShapedFont {
        if let font = sizes.withLock({ $0[pixels] }) { return font }
        let font = try ShapedFont(file: file, pixels: pixels)
        return sizes.withLock { sizes in
            if let existing = sizes[pixels] { return existing }
            sizes[pixels] = font
            return font
        }
    }
}

/// Fonts found for characters a text's font lacks, by character, then by file and size.
final class FallbackFonts: Sendable {
    private let files = Mutex<[UInt32: String?]>([:])
    private let shelves = Mutex<[String: FontShelf]>([:])

    /// A font at `pixels` that has `scalar`, like `pattern`; nil when none is installed.
    func font(for scalar: Unicode.Scalar, like pattern: String, pixels: Double) -> ShapedFont? {
        let file: String? = files.withLock { files in
            if let known = files[scalar.value] { return known }
            var path = [CChar](repeating: 0, count: 4096)
            let found = vfx_font_find_covering(pattern, scalar.value, &path, path.count) == 0
                ? String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
            files[scalar.value] = found
            return found
        }
        guard let file else { return nil }
        let shelf = shelves.withLock { shelves in
            if let shelf = shelves[file] { return shelf }
            let shelf = FontShelf(file: file)
            shelves[file] = shelf
            return shelf
        }
        return try? shelf.font(pixels: pixels)
    }
}
