@testable import Effects
import Foundation
import FrameCore
import TestSupport
import Testing

/// `text` (issue 48): templates, the chain syntax's quoting, placement, and shaping
/// against HarfBuzz's own `hb-view`.
@Suite struct TextTests {
    @Test func templatesAreFilledInPerFrame() throws {
        #expect(Text.timecode(tick: 45, rate: 30) == "00:00:01:15")
        #expect(Text.timecode(tick: 45, rate: 30000.0 / 1001) == "00:00:01:15", "non-drop: 29.97 counts 30")
        #expect(Text.timecode(tick: 90_000 + 24, rate: 25) == "01:00:00:24")
        #expect(Text.clock(3723.5) == "1:02:03.500")
        #expect(try Text.pieces(of: "a {{b}} {tick}") == [.literal("a {b} "), .field(.tick)])
        let text = try Text(parameters: Parameters(parsing: [("text", "{file} {tick} {time} {source_time} {timecode}")],
                                                   for: Text.descriptor), resources: EffectResources())
        var context = RenderContext(time: 1.5, width: 64, height: 64)
        (context.tick, context.sourceTime, context.frameRate, context.inputName) = (45, 3, Rational(30, 1), "clip.mp4")
        #expect(text.lines(for: context) == ["clip.mp4 45 0:00:01.500 0:00:03.000 00:00:01:15"])
    }

    @Test func badTemplatesAndFontsAreRefusedByName() {
        func message(_ chain: String) -> String {
            do { _ = try EffectChain(parsing: chain); return "" } catch { return error.description }
        }
        #expect(message("text:text={timcode}").contains("did you mean {timecode}?"))
        #expect(message("text:text=a {b").contains("is not closed"))
        #expect(message("text:text=a } b").contains("closes no template"))
        #expect(message("text:font=No Such Family").contains("no font family 'No Such Family' is installed"))
        #expect(message("text:text='open").contains("quote (') is not closed"))
        #expect(message("text:text=a\u{7}b").contains("control character U+7"))
        #expect(message("text:font=sans-serif").isEmpty, "a generic family is whatever the system prefers")
    }

    @Test func quotedValuesKeepTheirColonsAndCommasAndRoundTrip() throws {
        let chain = try EffectChain(parsing: "text:text='Take 2: the pier, dawn':size=20,sepia")
        #expect(chain.entries.count == 2)
        #expect(chain.entries[0].parameters.text("text") == "Take 2: the pier, dawn")
        let again = try EffectChain(parsing: chain.description)
        #expect(again.entries[0].parameters.text("text") == "Take 2: the pier, dawn")
        #expect(try EffectChain(parsing: #"text:text=it\'s 5\:00"#).entries[0].parameters.text("text") == "it's 5:00")
        #expect(try EffectChain(parsing: "text:text='it'\\''s'").description.contains(#"text='it'\''s'"#))
        // A timecode's colons need no quotes: pieces that start with a digit continue the value.
        #expect(try EffectChain(parsing: "text:text=vidfx 0:00:01:15").entries[0].parameters.text("text") == "vidfx 0:00:01:15")
        // Backslashes before other characters are the text's own (a caption's \n).
        #expect(try EffectChain(parsing: #"text:text=a\nb"#).entries[0].parameters.text("text") == #"a\nb"#)
    }

    /// Random chains of the syntax's special characters: parsing never traps, and what
    /// parses prints as a chain that parses back to itself (quotes and all).
    @Test func randomChainsParseOrFailCleanlyAndRoundTrip() throws {
        let pieces = ["text", "text=", ":", ",", "'", "\\", "=", "a", " ", "{{", "}}", "@", "sepia", "0", ":size=9", "n", "é", "{tick}"]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(pieces.count))
        }
        var parsed = 0
        for _ in 0..<3000 {
            let text = (0..<(1 + next() % 12)).map { _ in pieces[next()] }.joined()
            guard let chain = try? EffectChain(parsing: text) else { continue }
            parsed += 1
            let again = try EffectChain(parsing: chain.description)
            #expect(again.description == chain.description, "'\(text)' → '\(chain.description)' → '\(again.description)'")
        }
        #expect(parsed > 50, "enough of them parse to test the round trip: \(parsed)")
    }

    /// A frame of one opaque colour.
    static func plain(width: Int, height: Int, _ pixel: UInt32) -> Frame {
        var f = Frame(width: width, height: height)
        let stride = f.bytesPerRow / 4
        f.withUnsafeMutableBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for y in 0..<height { for x in 0..<width { p[y * stride + x] = pixel } }
        }
        return f
    }

    /// The pixel at (x, y) as a BGRA word (`b | g << 8 | r << 16 | a << 24`).
    static func word(_ f: Frame, _ x: Int, _ y: Int) -> UInt32 {
        let p = f.pixel(x: x, y: y)
        return UInt32(p.b) | UInt32(p.g) << 8 | UInt32(p.r) << 16 | UInt32(p.a) << 24
    }

    /// The box around the pixels unlike `background` (x0, y0, x1, y1, exclusive ends).
    static func ink(_ f: Frame, background: UInt32) -> (Int, Int, Int, Int)? {
        var box: (Int, Int, Int, Int)?
        for y in 0..<f.height {
            for x in 0..<f.width where word(f, x, y) != background {
                box = box.map { (min($0.0, x), min($0.1, y), max($0.2, x + 1), max($0.3, y + 1)) } ?? (x, y, x + 1, y + 1)
            }
        }
        return box
    }

    @Test func theAnchorPlacesTheBlockWithItsMargin() throws {
        let black: UInt32 = 0xFF00_0000
        let source = Self.plain(width: 400, height: 200, black)
        for anchor in ["topleft", "topright", "bottomleft", "bottomright", "center"] {
            let out = try Fixture.apply("text:text=Hg:size=40:margin=0.5:anchor=\(anchor)", to: source)
            let box = try #require(Self.ink(out, background: black), "\(anchor): something is drawn")
            switch anchor {
            case "topleft": #expect(box.0 >= 20 && box.0 <= 24 && box.1 >= 20 && box.1 <= 30, "\(anchor): \(box)")
            case "topright": #expect(box.2 <= 380 && box.2 >= 376 && box.1 >= 20, "\(anchor): \(box)")
            case "bottomleft": #expect(box.0 >= 20 && box.3 <= 180 && box.3 >= 170, "\(anchor): \(box)")
            case "bottomright": #expect(box.2 <= 380 && box.3 <= 180, "\(anchor): \(box)")
            default: #expect(abs((box.0 + box.2) / 2 - 200) <= 2 && abs((box.1 + box.3) / 2 - 100) <= 8, "\(anchor): \(box)")
            }
            // White glyph cores at full coverage, and nothing but grey levels of white.
            #expect(Self.word(out, 0, 0) == black)
            var white = 0
            for y in box.1..<box.3 {
                for x in box.0..<box.2 {
                    let p = out.pixel(x: x, y: y)
                    #expect(p.r == p.g && p.g == p.b)
                    if p.r == 255 { white += 1 }
                }
            }
            #expect(white > 200, "\(anchor): solid strokes")
        }
    }

    @Test func theBoxIsItsColourAroundTheTextAndLinesStack() throws {
        let source = Self.plain(width: 300, height: 200, 0xFF00_0000)
        let one = try Fixture.apply("text:text=A:size=40:box=#FF0000:padding=0.5:anchor=topleft:margin=0", to: source)
        #expect(Self.word(one, 1, 1) == 0xFFFF_0000, "the box's corner is its colour")
        let two = try Fixture.apply(#"text:text=A\nA:size=40:anchor=topleft:margin=0"#, to: source)
        let a = try #require(Self.ink(try Fixture.apply("text:text=A:size=40:anchor=topleft:margin=0", to: source), background: 0xFF00_0000))
        let b = try #require(Self.ink(two, background: 0xFF00_0000))
        // The second line is one line height lower (DejaVu Sans: 1.164 em).
        #expect(abs((b.3 - a.3) - 47) <= 1, "lines \(b.3 - a.3) px apart")
    }

    @Test func glyphsAreRasterisedOnceAndReused() throws {
        let text = try Text(parameters: Parameters(parsing: [("text", "{tick}"), ("size", "30")], for: Text.descriptor),
                            resources: EffectResources())
        var frame = Self.plain(width: 200, height: 80, 0xFF00_0000)
        var outputs: Set<[UInt8]> = []
        for tick in [7, 7, 8, 77] {
            let chain = EffectChain([EffectChain.Entry(effect: text, parameters: try Parameters([:], for: Text.descriptor), enable: nil)])
            frame.tick = Int64(tick)
            outputs.insert(chain.apply(to: frame).packedBytes())
        }
        #expect(outputs.count == 3, "the same tick draws the same picture; others differ")
    }

    /// Text draws in place on a frame handed over (no copy of the whole frame first), with
    /// the same pixels as into a new frame, between colour passes too; a frame someone
    /// else still holds is left as it was.
    @Test func aFrameHandedOverIsDrawnInPlaceWithTheSamePixels() throws {
        for chain in ["text:text={timecode}:size=30:box=#00000099", "sepia,text:text=A\\nB:outline=2,posterize=5"] {
            let source = SharpenTests.scene(width: 320, height: 180)
            let effects = try EffectChain(parsing: chain)
            let copied = effects.apply(to: source, time: 1.5)
            var handed = source
            handed.withUnsafeMutableBytes { _ in }  // pixels of its own
            let before = effects.colorPasses.inPlace
            effects.apply(to: &handed, time: 1.5)
            #expect(Fixture.sameBytes(handed, copied), "\(chain)")
            #expect(effects.colorPasses.inPlace - before == (chain.hasPrefix("sepia") ? 3 : 1), "\(chain): \(effects.colorPasses)")
            #expect(!Fixture.sameBytes(copied, source), "it drew")
            #expect(Fixture.sameBytes(source, SharpenTests.scene(width: 320, height: 180)), "the shared frame is as it was")
        }
    }

    /// The oracle venv's python (make setup-test), which has OpenCV.
    static let python = BlurTests.python

    /// Ink of our line and of `hb-view`'s, both black on white in the same font and
    /// size, cropped to their ink and compared: sizes, and the overlap of the two
    /// inked areas over their union.
    /// With `drawn`, hb-view draws those characters left to right instead (a line's
    /// visual order, which hb-view does not find: it shapes one run in one direction).
    static func compareWithHBView(_ line: String, font: String, drawn: String? = nil) async throws -> (ours: [Int], theirs: [Int], iou: Double) {
        let file = try Text.findFont(font)
        let scratch = try ScratchDirectory("vidfx-text")
        let ours = scratch.path("ours.bgra"), theirs = scratch.path("theirs.png")
        let source = Self.plain(width: 900, height: 160, 0xFFFF_FFFF)
        let out = try Fixture.apply("text:text='\(line)':font='\(font)':size=60:color=#000000:anchor=center", to: source)
        try Data(out.packedBytes()).write(to: URL(fileURLWithPath: ours))
        _ = try await Subprocess.output("/usr/bin/env", ["hb-view", "--font-file=\(file)", "--font-size=60", "--margin=20",
                                                        "--output-format=png", "--output-file=\(theirs)"]
                                                       + (drawn == nil ? [line] : ["--direction=ltr", drawn!]))
        let script = """
            import sys, json, numpy as np, cv2
            a = 255 - np.fromfile(sys.argv[1], np.uint8).reshape(160, 900, 4)[:, :, 1].astype(np.int32)
            b = 255 - cv2.imread(sys.argv[2], cv2.IMREAD_GRAYSCALE).astype(np.int32)
            def crop(m):
                ys, xs = np.nonzero(m > 96)
                return m[ys.min():ys.max() + 1, xs.min():xs.max() + 1] > 96
            a, b = crop(a), crop(b)
            h, w = max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1])
            pa = np.zeros((h, w), bool); pa[:a.shape[0], :a.shape[1]] = a
            pb = np.zeros((h, w), bool); pb[:b.shape[0], :b.shape[1]] = b
            print(json.dumps({"ours": list(a.shape), "theirs": list(b.shape), "iou": float((pa & pb).sum() / (pa | pb).sum())}))
            """
        let data = try await Subprocess.output(python, ["-c", script, ours, theirs])
        struct Result: Decodable { var ours: [Int]; var theirs: [Int]; var iou: Double }
        let r = try JSONDecoder().decode(Result.self, from: data)
        return (r.ours, r.theirs, r.iou)
    }

    @Test(arguments: [("مرحبا بالعالم", "DejaVu Sans"), ("नमस्ते दुनिया", "Lohit Devanagari"), ("Wave ﬁne AVA", "DejaVu Sans")])
    func linesAreShapedAsHarfBuzzShapesThem(line: String, font: String) async throws {
        let r = try await Self.compareWithHBView(line, font: font)
        print("text '\(line)': ours \(r.ours), hb-view \(r.theirs), overlap \(r.iou)")
        #expect(abs(r.ours[0] - r.theirs[0]) <= 2 && abs(r.ours[1] - r.theirs[1]) <= 2, "ink \(r.ours) against hb-view's \(r.theirs)")
        #expect(r.iou >= 0.85, "overlap with hb-view's ink: \(r.iou)")
    }

    /// Lines that mix directions, laid out by the Unicode bidi algorithm. The oracle is
    /// python-bidi (Rust's unicode-bidi: UAX #9 by other hands than FriBidi's): its level
    /// for each character equals FriBidi's, and hb-view draws its visual string (with the
    /// mirrored forms of brackets at right-to-left levels, which python-bidi leaves as they
    /// are and HarfBuzz mirrors) left to right. Hebrew does not join, so that string drawn
    /// left to right is how the line must look. In the order written (as before FriBidi)
    /// each would overlap far less.
    @Test(arguments: ["vidfx שלום עולם 123", "שלום (vidfx) 2026!", "abc אבג, 12 דהו."])
    func mixedDirectionsFollowTheBidiAlgorithm(line: String) async throws {
        let script = """
            import sys, re, json, bidi
            from bidi.mirror import MIRRORED
            line = sys.argv[1]
            info = bidi.get_display(line, debug=True)
            per_byte = [int(v) for v in re.findall(r"Level\\(\\s*(\\d+),\\s*\\)", info.split("levels:")[1].split("paragraphs:")[0])]
            levels, at = [], 0
            for c in line:
                levels.append(per_byte[at]); at += len(c.encode())
            order = list(range(len(line)))
            for level in range(max(levels), (min(levels) | 1) - 1, -1):
                i = 0
                while i < len(order):
                    if levels[order[i]] < level: i += 1; continue
                    j = i
                    while j < len(order) and levels[order[j]] >= level: j += 1
                    order[i:j] = order[i:j][::-1]; i = j
            assert "".join(line[k] for k in order) == bidi.get_display(line)
            shown = "".join(MIRRORED.get(line[k], line[k]) if levels[k] % 2 else line[k] for k in order)
            print(json.dumps({"levels": levels, "shown": shown}))
            """
        struct Oracle: Decodable { var levels: [Int8]; var shown: String }
        let oracle = try JSONDecoder().decode(Oracle.self, from: try await Subprocess.output(Self.python, ["-c", script, line]))
        #expect(Text.bidiLevels(Array(line.unicodeScalars)) == oracle.levels, "FriBidi's levels against python-bidi's \(oracle.levels)")
        let r = try await Self.compareWithHBView(line, font: "DejaVu Sans", drawn: oracle.shown)
        let written = try await Self.compareWithHBView(line, font: "DejaVu Sans", drawn: line)
        print("text '\(line)': ours \(r.ours), hb-view of '\(oracle.shown)' \(r.theirs), overlap \(r.iou); in the order written \(written.iou)")
        #expect(abs(r.ours[0] - r.theirs[0]) <= 2 && abs(r.ours[1] - r.theirs[1]) <= 2, "ink \(r.ours) against hb-view's \(r.theirs)")
        #expect(r.iou >= 0.95, "overlap with hb-view's ink in visual order: \(r.iou)")
        #expect(written.iou < r.iou - 0.3, "the order written would overlap \(written.iou)")
    }

    /// Rule L2 on runs: from the highest level down to the lowest odd one, each stretch at
    /// that level or above is reversed.
    @Test func runsArePlacedInVisualOrder() {
        #expect(Text.visualOrder([0, 1, 0]) == [0, 1, 2])
        #expect(Text.visualOrder([1, 2, 1]) == [2, 1, 0])
        #expect(Text.visualOrder([0, 1, 2, 1, 0]) == [0, 3, 2, 1, 4])
        #expect(Text.visualOrder([1, 1, 1]) == [2, 1, 0])
        #expect(Text.visualOrder([0, 2, 2, 0]) == [0, 1, 2, 3])
        #expect(Text.visualOrder([-1, -1]) == [0, 1])
        #expect(Text.bidiLevels(Array("00:00:01:15".unicodeScalars)) == [Int8](repeating: 0, count: 11))
    }

    @Test func aCharacterTheFontLacksComesFromAnotherFont() throws {
        // Lohit Devanagari has no Arabic: fontconfig's choice for it draws the word, not boxes.
        let source = Self.plain(width: 600, height: 120, 0xFFFF_FFFF)
        let fallback = try Fixture.apply("text:text=مرحبا:font=Lohit Devanagari:size=60:color=#000000", to: source)
        let direct = try Fixture.apply("text:text=مرحبا:font=DejaVu Sans:size=60:color=#000000", to: source)
        let a = try #require(Self.ink(fallback, background: 0xFFFF_FFFF)), b = try #require(Self.ink(direct, background: 0xFFFF_FFFF))
        #expect(a.2 - a.0 == b.2 - b.0, "the same width as DejaVu's word: \(a) \(b)")
    }
}
