import Effects
import Foundation
import FrameCore
import FrameSource
import Testing

/// faceblur, facebox and qrbox on a real photograph, with the observations given (what
/// a detector would report), so that only the drawing is under test.
@Suite struct DetectionEffectTests {
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("testmedia/crowd.jpg").path

    /// Five of the crowd's faces, large and small.
    static let faces = [Rect(x: 221.1, y: 107.6, width: 33.2, height: 39.8), Rect(x: 56.7, y: 130.2, width: 33, height: 42),
                        Rect(x: 605.1, y: 157.3, width: 33.1, height: 41.4), Rect(x: 427.9, y: 140.5, width: 14.4, height: 19.2),
                        Rect(x: 715, y: 140, width: 9.5, height: 12)]

    func photograph() throws -> Frame {
        let source = try FrameSource(Self.photo)
        defer { source.close() }
        var frame = try #require(try source.nextFrame())
        frame.observations = Self.faces.enumerated().map { Observation(kind: .face, bounds: $0.element, confidence: 0.9, trackID: $0.offset + 1) }
        return frame
    }

    /// Mean absolute second difference of luma, across and down: what detail there is.
    func detail(_ f: Frame, in r: Rect) -> Double {
        func luma(_ x: Int, _ y: Int) -> Double { let p = f.pixel(x: x, y: y); return 0.299 * Double(p.r) + 0.587 * Double(p.g) + 0.114 * Double(p.b) }
        var sum = 0.0, n = 0
        for y in Int(r.y) + 1..<Int(r.y + r.height) - 1 {
            for x in Int(r.x) + 1..<Int(r.x + r.width) - 1 {
                sum += abs(luma(x - 1, y) - 2 * luma(x, y) + luma(x + 1, y)) + abs(luma(x, y - 1) - 2 * luma(x, y) + luma(x, y + 1))
                n += 1
            }
        }
        return sum / Double(max(n, 1))
    }

    /// The detector's error every shape but erase's is grown by, on the photograph.
    static let slack = FaceBlur.slack(width: 800, height: 564)

    /// Whether (x, y) lies in any face's box grown by `padding` and the slack (the shape's
    /// bounding box, for every mode but erase).
    func inShape(_ x: Int, _ y: Int, padding: Double) -> Bool {
        Self.faces.contains { f in
            // faceblur's head: the face box padded, a sixth of its height more above, and the slack.
            var r = f.padded(by: padding)
            r.y -= f.height / 6 + Self.slack
            r.x -= Self.slack
            r.height += f.height / 6 + 2 * Self.slack
            r.width += 2 * Self.slack
            return Double(x) + 1 > r.x && Double(x) < r.x + r.width && Double(y) + 1 > r.y && Double(y) < r.y + r.height
        }
    }

    @Test(arguments: ["faceblur", "faceblur:mode=blur", "faceblur:mode=blur:padding=0.3:feather=0.08", "faceblur:mode=pixelate",
                      "faceblur:mode=fill", "faceblur:shape=box:padding=0.1", "faceblur:mode=blur:shape=box:padding=0.1"])
    func facesLoseTheirDetailAndNothingElseChanges(chain text: String) throws {
        let frame = try photograph()
        // Patch's default is tight; the blurs' is the face's size on each side.
        let padding = text.contains("padding=0.1") ? 0.1 : text.contains("padding=0.3") ? 0.3
            : text.contains("mode=") ? FaceBlur.widePadding : FaceBlur.defaultPadding
        let out = try EffectChain(parsing: text).apply(to: frame)
        for face in Self.faces where face.width > 20 {
            if text.contains("pixelate") {
                // Flat blocks, about six across the shape: a handful of colours where there were hundreds.
                var colours = Set<UInt32>(), before = Set<UInt32>()
                for y in Int(face.y)..<Int(face.y + face.height) { for x in Int(face.x)..<Int(face.x + face.width) {
                    let p = out.pixel(x: x, y: y), q = frame.pixel(x: x, y: y)
                    colours.insert(UInt32(p.b) | UInt32(p.g) << 8 | UInt32(p.r) << 16)
                    before.insert(UInt32(q.b) | UInt32(q.g) << 8 | UInt32(q.r) << 16)
                } }
                #expect(colours.count <= 49 && before.count > 300, "\(text): \(before.count) colours → \(colours.count) in \(face)")
            } else {
                let before = detail(frame, in: face), after = detail(out, in: face)
                #expect(after < before * 0.1, "\(text): detail \(before) → \(after) in \(face)")
            }
        }
        // Outside the shapes: byte for byte the input.
        var changed = 0
        for y in 0..<frame.height { for x in 0..<frame.width where !inShape(x, y, padding: padding) {
            if frame.pixel(x: x, y: y) != out.pixel(x: x, y: y) { changed += 1 }
        } }
        #expect(changed == 0, "\(text): \(changed) pixels changed outside the faces")
    }

    /// Patch (the default) and erase read nothing under the heads: every pixel inside the
    /// shapes scrambled, the output is the same there, byte for byte. What is left cannot
    /// say anything about the face, because it was made without it. Nor, with a `ring`
    /// above 1, does it depend on what lies around them within the ring (hair, ears, neck):
    /// the scrambled area is the shape grown by the ring about its centre.
    @Test(arguments: ["faceblur", "faceblur:shape=box", "faceblur:padding=0.3", "faceblur:ring=1", "faceblur:padding=0.15:ring=2:shape=box",
                      "faceblur:mode=erase", "faceblur:mode=erase:padding=0.3:ring=2", "faceblur:mode=erase:padding=1.4:shape=box"])
    func eraseKeepsNothingOfTheHeads(chain text: String) throws {
        let frame = try photograph()
        /// The number after `name=` in the chain, if given.
        func given(_ name: String) -> Double? {
            text.split(separator: ":").first { $0.hasPrefix(name + "=") }.flatMap { Double($0.dropFirst(name.count + 1)) }
        }
        // Erase: at least the face's size on each side, read from the shape's edge.
        let erase = text.contains("mode=erase"), box = text.contains("box")
        let padding = erase ? max(FaceBlur.widePadding, given("padding") ?? 0) : given("padding") ?? FaceBlur.defaultPadding
        let ring = erase ? 1 : given("ring") ?? FaceBlur.defaultRing
        /// Pixel (x, y)'s distance from a head's centre in its radii, the least of any head.
        func distance(_ x: Int, _ y: Int) -> Double {
            Self.faces.map { f in
                var r = f.padded(by: padding)
                let slack = erase ? 0 : Self.slack
                r.y -= f.height / 6 + slack
                r.x -= slack
                r.height += f.height / 6 + 2 * slack
                r.width += 2 * slack
                let nx = (Double(x) + 0.5 - (r.x + r.width / 2)) / (r.width / 2)
                let ny = (Double(y) + 0.5 - (r.y + r.height / 2)) / (r.height / 2)
                return box ? max(abs(nx), abs(ny)) : (nx * nx + ny * ny).squareRoot()
            }.min()!
        }
        var scrambled = frame
        var inside = 0
        let stride = frame.bytesPerRow
        scrambled.withUnsafeMutableBytes { bytes in
            for y in 0..<frame.height { for x in 0..<frame.width {
                // Just inside the ring's edge, clear of rounding.
                guard distance(x, y) < 0.98 * ring else { continue }
                inside += 1
                for c in 0..<3 { bytes[y * stride + 4 * x + c] = UInt8(truncatingIfNeeded: (x * 37 + y * 101 + c * 59) & 0xFF) }
            } }
        }
        #expect(inside > 5000, "the heads cover pixels: \(inside)")
        let chain = try EffectChain(parsing: text)
        let a = chain.apply(to: frame), b = chain.apply(to: scrambled)
        var differ = 0, compared = 0
        for y in 0..<frame.height { for x in 0..<frame.width where distance(x, y) < 0.98 {
            compared += 1
            if a.pixel(x: x, y: y) != b.pixel(x: x, y: y) { differ += 1 }
        } }
        #expect(compared > 5000)
        #expect(differ == 0, "\(text): \(differ) erased pixels depend on what was under the heads or within the ring")
        if ring > 1 {
            // The ring's own pixels outside the shape are the picture's: the scrambled ones show.
            var kept = 0
            for y in 0..<frame.height { for x in 0..<frame.width where distance(x, y) > 1.02 && distance(x, y) < 0.98 * ring {
                if b.pixel(x: x, y: y) == scrambled.pixel(x: x, y: y) { kept += 1 }
            } }
            #expect(kept > 1000, "\(text): the area between the shape and the ring is left as it is")
        }
    }

    /// On a transparent edge (left half clear black, right half opaque white, a face box
    /// across it) the blurred, pixelated and feathered pixels stay white as they fade:
    /// colours are averaged premultiplied, so the clear pixels' black does not bleed in.
    @Test(arguments: ["faceblur:mode=blur", "faceblur:mode=pixelate", "faceblur:mode=blur:feather=0.5", "faceblur:feather=0.5:padding=0.1"])
    func transparentPixelsDoNotDarkenTheBlur(chain text: String) throws {
        var frame = Fixture.clearAndWhite(width: 64, height: 64) { $0 < 32 }
        frame.observations = [Observation(kind: .face, bounds: Rect(x: 16, y: 16, width: 32, height: 32), confidence: 0.9, trackID: 1)]
        let (darkest, partial) = Fixture.fringe(try EffectChain(parsing: text).apply(to: frame))
        #expect(darkest >= 253, "\(text)")
        #expect(partial > 0, "\(text): the edge was not blurred")
    }

    /// Padding's default follows the mode (0.2 for patch, 1 for the blurs), and a chain
    /// written out and parsed again keeps following it: a blur that came back through the
    /// studio or a render's report with `padding=0.2` written in would leave faces.
    @Test func paddingsDefaultFollowsTheModeThroughARoundTrip() throws {
        let frame = try photograph()
        func same(_ a: String, _ b: String) throws -> Bool {
            Fixture.sameBytes(try EffectChain(parsing: a).apply(to: frame), try EffectChain(parsing: b).apply(to: frame))
        }
        for mode in ["blur", "pixelate", "fill"] {
            let chain = try EffectChain(parsing: "faceblur:mode=\(mode)")
            #expect(!chain.description.contains("padding"), "\(chain)")
            #expect(try same(chain.description, "faceblur:mode=\(mode):padding=1"), "\(mode)")
            #expect(try !same(chain.description, "faceblur:mode=\(mode):padding=0.2"), "\(mode)")
            // Given, it is written out and kept, even when it is the table's default.
            let tight = try EffectChain(parsing: "faceblur:mode=\(mode):padding=0.2")
            #expect(tight.description.contains("padding=0.2"), "\(tight)")
            #expect(try same(tight.description, "faceblur:mode=\(mode):padding=0.2"), "\(mode)")
        }
        #expect(try same(EffectChain(parsing: "faceblur").description, "faceblur:mode=patch:padding=0.2"))
        // Keyframes on another parameter keep padding's default following the mode.
        let animated = try EffectChain(parsing: "faceblur:mode=blur:feather=0@0,0.2@2")
        #expect(!animated.description.contains("padding"), "\(animated)")
    }

    @Test func withAnotherEffectTheFrameIsThatEffectsOutsideTheFaces() throws {
        let frame = try photograph()
        let both = try EffectChain(parsing: "sepia,faceblur").apply(to: frame)
        let sepia = try EffectChain(parsing: "sepia").apply(to: frame)
        var changed = 0
        for y in 0..<frame.height { for x in 0..<frame.width where !inShape(x, y, padding: FaceBlur.defaultPadding) {
            if both.pixel(x: x, y: y) != sepia.pixel(x: x, y: y) { changed += 1 }
        } }
        #expect(changed == 0)
    }

    /// The redaction report's share (issue 50): the pixels a faceblur says it replaces,
    /// without rendering, are exactly those a render changes. A fill colour of pure
    /// magenta at half alpha is in no pixel of the photograph, so every pixel it reaches
    /// differs; the faces include overlapping heads and one carried half out of the frame.
    @Test(arguments: ["faceblur:mode=fill:color=ff00ff80", "faceblur:mode=fill:color=ff00ff80:shape=box:padding=0.2",
                      "faceblur:mode=fill:color=ff00ff80:feather=0.3:padding=0.5", "faceblur:mode=fill:color=ff00ff80:padding=0"])
    func redactedPixelsAreThePixelsARenderChanges(chain text: String) throws {
        var frame = try photograph()
        frame.observations += [Observation(kind: .face, bounds: Rect(x: 230, y: 115, width: 30, height: 36), confidence: 0.9, trackID: 9),
                               Observation(kind: .face, bounds: Rect(x: Double(frame.width) - 20, y: -15, width: 50, height: 60), confidence: 0.9, trackID: 10),
                               Observation(kind: .face, bounds: Rect(x: 1e12, y: -1e12, width: 40, height: 40), confidence: 0.9, trackID: 11)]
        let chain = try EffectChain(parsing: text)
        let out = chain.apply(to: frame)
        var changed = 0
        for y in 0..<frame.height { for x in 0..<frame.width where out.pixel(x: x, y: y) != frame.pixel(x: x, y: y) { changed += 1 } }
        #expect(changed > 1000, "\(text): the faces were redacted")
        let redacted = chain.redactedPixels(in: frame)
        if text.contains("feather") {
            // The feather's outermost pixels are blended by so little that some round back to
            // their own colour: counted as redacted, not changed.
            #expect(redacted >= changed && Double(redacted) <= Double(changed) * 1.005, "\(text): \(redacted) against \(changed)")
        } else {
            #expect(redacted == changed, "\(text)")
        }
        frame.observations = []
        #expect(chain.redactedPixels(in: frame) == 0)
        #expect(try EffectChain(parsing: "sepia").redactedPixels(in: try photograph()) == 0, "no redaction, no share")
    }

    /// A face the frame's edge cuts (issue 50) is covered along that edge for its whole
    /// height (or width), even with no padding: an ellipse centred on the visible part
    /// would curve away from the edge and leave the cut face's corners.
    @Test(arguments: ["faceblur:mode=fill:color=ff00ff:padding=0", "faceblur:mode=fill:color=ff00ff:padding=0.15"])
    func facesCutByTheEdgeAreCoveredToIt(chain text: String) throws {
        var frame = try photograph()
        let (w, h) = (frame.width, frame.height)
        let right = Rect(x: Double(w) - 18, y: 100, width: 18, height: 40), top = Rect(x: 300, y: 0, width: 30, height: 16)
        frame.observations = [Observation(kind: .face, bounds: right, confidence: 0.9, trackID: 1),
                              Observation(kind: .face, bounds: top, confidence: 0.9, trackID: 2)]
        let out = try EffectChain(parsing: text).apply(to: frame)
        func magenta(_ x: Int, _ y: Int) -> Bool { let p = out.pixel(x: x, y: y); return p.r == 255 && p.g == 0 && p.b == 255 }
        let edgeRows = (100..<140).filter { magenta(w - 1, $0) }
        #expect(edgeRows.count == 40, "\(text): the right edge is covered on \(edgeRows.count) of the face's 40 rows")
        let edgeColumns = (300..<330).filter { magenta($0, 0) }
        #expect(edgeColumns.count == 30, "\(text): the top edge is covered on \(edgeColumns.count) of the face's 30 columns")
        // A face away from the edges keeps its shape: nothing at the frame's edge.
        frame.observations = [Observation(kind: .face, bounds: Rect(x: 300, y: 200, width: 30, height: 40), confidence: 0.9, trackID: 3)]
        let inside = try EffectChain(parsing: text).apply(to: frame)
        #expect((0..<h).allSatisfy { inside.pixel(x: w - 1, y: $0) == frame.pixel(x: w - 1, y: $0) })
    }

    @Test func aFrameWithoutObservationsIsUntouched() throws {
        var frame = try photograph()
        frame.observations = []
        for text in ["faceblur", "facebox", "qrbox"] {
            let out = try EffectChain(parsing: text).apply(to: frame)
            var same = true
            for y in stride(from: 0, to: frame.height, by: 3) { for x in stride(from: 0, to: frame.width, by: 3) where frame.pixel(x: x, y: y) != out.pixel(x: x, y: y) { same = false } }
            #expect(same, "\(text)")
        }
    }

    /// Boxes carried along a track's motion leave the frame (a panning preview crashed on
    /// one just past the right edge), and a detector may say anything: nothing traps, and
    /// a box wholly outside changes nothing.
    @Test(arguments: [Rect(x: 2000, y: 100, width: 50, height: 60), Rect(x: -300, y: 100, width: 50, height: 60),
                      Rect(x: 100, y: -500, width: 50, height: 60), Rect(x: 100, y: 5000, width: 50, height: 60),
                      Rect(x: 1e300, y: -1e300, width: 1e300, height: 1e300), Rect(x: .nan, y: 10, width: 50, height: .infinity)])
    func boxesOutsideTheFrameAreHarmless(box: Rect) throws {
        var frame = try photograph()
        let corners = [Point(x: box.x, y: box.y), Point(x: box.x + box.width, y: box.y), Point(x: box.x + box.width, y: box.y + box.height),
                       Point(x: box.x, y: box.y + box.height)]
        frame.observations = [Observation(kind: .face, bounds: box, confidence: 0.9, trackID: 7),
                              Observation(kind: .qr, bounds: box, corners: corners, payload: "x", confidence: 1, trackID: 8)]
        for text in ["faceblur", "faceblur:mode=pixelate", "faceblur:mode=fill", "facebox:label=id", "qrbox"] {
            let out = try EffectChain(parsing: text).apply(to: frame)
            var same = true
            for y in 0..<frame.height { for x in 0..<frame.width where frame.pixel(x: x, y: y) != out.pixel(x: x, y: y) { same = false } }
            #expect(same, "\(text) changed the frame for \(box)")
        }
    }

    @Test func boxesAreDrawnOnTheOutlineOnly() throws {
        var frame = try photograph()
        let code = Observation(kind: .qr, bounds: Rect(x: 300, y: 300, width: 100, height: 100),
                               corners: [Point(x: 300, y: 300), Point(x: 400, y: 300), Point(x: 400, y: 400), Point(x: 300, y: 400)],
                               payload: "https://vidfx.example/")
        frame.observations.append(code)
        let out = try EffectChain(parsing: "facebox:color=#FF0000:landmarks=off:label=off,qrbox:color=#0000FF:caption=0").apply(to: frame)
        let face = Self.faces[0]
        // On the outline: the colour; inside, well away from it: the photograph.
        let edge = out.pixel(x: Int(face.x + face.width / 2), y: Int(face.y.rounded()))
        #expect(edge.r == 255 && edge.g == 0 && edge.b == 0)
        #expect(out.pixel(x: Int(face.x + face.width / 2), y: Int(face.y + face.height / 2)) == frame.pixel(x: Int(face.x + face.width / 2), y: Int(face.y + face.height / 2)))
        let side = out.pixel(x: 300, y: 350)
        #expect(side.b == 255 && side.r == 0 && side.g == 0)
        #expect(out.pixel(x: 350, y: 350) == frame.pixel(x: 350, y: 350))
        #expect(out.pixel(x: 290, y: 350) == frame.pixel(x: 290, y: 350))
    }

    @Test func theChainSaysWhatItNeedsDetected() throws {
        #expect(try EffectChain(parsing: "sepia").needs.isEmpty)
        #expect(try EffectChain(parsing: "sepia,faceblur").needs == .faces)
        #expect(try EffectChain(parsing: "qrbox,facebox").needs == [.codes, .faces])
    }
}
