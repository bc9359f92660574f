import Detection
import Effects
import Render
import Foundation
import FrameCore
import FrameSource
import Sinks

/// The contact sheet of `vidfx effects --gallery`: every effect (with its defaults)
/// applied to one frame, each tile labelled.
enum Gallery {
    static let tileWidth = 320
    static let labelHeight = 20
    static let columns = 4

    /// Renders the sheet of `effects` (each with its example) from `frame` at time `time`.
    static func render(_ frame: Frame, time: Double, effects: [any Effect.Type] = EffectRegistry.all) throws -> Frame {
        var frame = frame
        // What the detection effects draw and redact: the frame's codes and faces, found as
        // a redacting render finds them (`dump --at T -e faceblur`: the same detector
        // settings, small faces, the recheck over blurred heads), so a tile shows what the
        // effect does to that frame. Without the face model, codes only.
        if let stage = try? DetectionStage.make(chain: EffectChain(parsing: "faceblur,qrbox"), settings: DetectionSettings(), reviewed: nil,
                                                 frameRate: 30, overwrite: true),
           let seen = try? stage.push(frame) + stage.finish(), let found = seen.last {
            frame.observations = found.observations
        } else {
            frame.observations = Tracker().assign((try? CodeDetector().detect(frame)) ?? [])
        }
        var tiles: [(String, Frame)] = [("ORIGINAL", frame)]
        let demoCube = try writeDemoCube()
        defer { try? FileManager.default.removeItem(atPath: demoCube) }
        let demoBadge = try writeDemoBadge()
        defer { try? FileManager.default.removeItem(atPath: demoBadge) }
        // Effects that need a file get a demo one: a teal-and-orange grade, a badge with alpha.
        let demoFiles = ["lut": demoCube, "overlay": demoBadge]
        let resources = EffectChainParsing.resources
        for type in effects {
            let d = type.descriptor
            var chain = d.example ?? d.name
            if let file = d.parameters.first(where: { $0.type == .file && $0.defaultValue == nil }) {
                // The example names a file of the user's (grade.cube, logo.png): show the demo one.
                let demo = demoFiles[d.name] ?? demoCube
                if let named = chain.range(of: "\(file.name)=") {
                    let end = chain[named.upperBound...].firstIndex(where: { $0 == ":" || $0 == "," }) ?? chain.endIndex
                    chain.replaceSubrange(named.upperBound..<end, with: demo)
                } else {
                    chain += ":\(file.name)=\(demo)"
                }
            }
            let shown = try EffectChain(parsing: chain, resources: resources).apply(to: frame, time: time)
            // Without an example, effects whose defaults are the identity (the Core Image
            // adjustments) are shown with their first parameter a quarter up its slider.
            if d.example == nil, shown.packedBytes() == frame.packedBytes(), let first = d.parameters.first,
               case .number(let v)? = first.defaultValue, let top = first.sliderMax, top > v {
                var value = v + (top - v) / 4
                if case .int = first.type { value = value.rounded() }
                let label = "\(first.name)=\(ParameterValue.number((value * 100).rounded() / 100))"
                tiles.append(("\(d.name) \(label)".uppercased(), try EffectChain(parsing: "\(d.name):\(label)").apply(to: frame, time: time)))
                continue
            }
            tiles.append((d.name.uppercased(), shown))
        }
        let tileHeight = max(1, tileWidth * frame.height / frame.width)
        // A short sheet (a few effects) in three columns, so that it is not mostly empty.
        let columns = tiles.count <= 6 ? min(3, tiles.count) : Self.columns
        let rows = (tiles.count + columns - 1) / columns
        let cellHeight = tileHeight + labelHeight
        var sheet = Frame(width: columns * tileWidth, height: rows * cellHeight)
        let stride = sheet.bytesPerRow / 4, sheetWidth = sheet.width, sheetHeight = sheet.height
        sheet.withUnsafeMutableBytes { b in
            let out = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
            out.update(repeating: 0xFF20_2020, count: stride * sheetHeight)
            for (i, (label, image)) in tiles.enumerated() {
                let ox = (i % columns) * tileWidth, oy = (i / columns) * cellHeight
                // Aspect-fit: a crop has another shape than the frame.
                let fit = FrameScaler.fit(width: image.width, height: image.height, into: (tileWidth, tileHeight))
                let small = FrameScaler.resize(image, width: fit.width, height: fit.height)
                let (fx, fy) = (ox + (tileWidth - fit.width) / 2, oy + labelHeight + (tileHeight - fit.height) / 2)
                small.withUnsafeBytes { t in
                    let tile = t.baseAddress!.assumingMemoryBound(to: UInt32.self), tileStride = small.bytesPerRow / 4
                    // Opaque, as a video encoder shows it: transparent pixels (affine's uncovered canvas) are black.
                    for y in 0..<fit.height {
                        for x in 0..<fit.width { out[(fy + y) * stride + fx + x] = tile[y * tileStride + x] | 0xFF00_0000 }
                    }
                }
                Caption.draw(label, into: out, stride: stride, width: sheetWidth, height: sheetHeight, x: ox + 6, y: oy + 3)
            }
        }
        return sheet
    }

    /// A 17³ teal-and-orange .cube in the temporary directory, for the lut tile.
    static func writeDemoCube() throws -> String {
        let n = 17
        var text = "TITLE \"vidfx demo teal and orange\"\nLUT_3D_SIZE \(n)\n"
        for b in 0..<n { for g in 0..<n { for r in 0..<n {
            let (R, G, B) = (Double(r) / 16, Double(g) / 16, Double(b) / 16)
            let l = 0.2126 * R + 0.7152 * G + 0.0722 * B
            // shadows toward teal, highlights toward orange
            let out = (min(1, R * 0.85 + l * 0.25), min(1, G * 0.9 + 0.05), min(1, B * 0.7 + (1 - l) * 0.2))
            text += "\(out.0) \(out.1) \(out.2)\n"
        } } }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-gallery-\(UUID().uuidString).cube").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A 200×80 badge PNG with a soft alpha edge and a label, for the overlay tile.
    static func writeDemoBadge() throws -> String {
        let (w, h) = (200, 80)
        var badge = Frame(width: w, height: h)
        let stride = badge.bytesPerRow / 4
        badge.withUnsafeMutableBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for y in 0..<h {
                for x in 0..<w {
                    // A rounded rectangle whose alpha fades over its last 6 px.
                    let dx = max(0, abs(Double(x) - 99.5) - 80), dy = max(0, abs(Double(y) - 39.5) - 20)
                    let edge = 20 - (dx * dx + dy * dy).squareRoot()
                    let alpha = UInt32(max(0, min(1, edge / 6)) * 220)
                    p[y * stride + x] = alpha << 24 | 0x00F0_C020
                }
            }
            Caption.draw("VIDFX", into: p, stride: stride, width: w, height: h, x: 40, y: 26, scale: 4, color: 0xFF20_2020)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-gallery-\(UUID().uuidString).png").path
        try ImageWriter.write(badge, to: path, as: .png)
        return path
    }

    /// A colourful frame for when no input is given: hue sweep, grey ramp, shapes.
    static func testPattern(width: Int = 640, height: Int = 360) -> Frame {
        var f = Frame(width: width, height: height)
        let stride = f.bytesPerRow / 4
        f.withUnsafeMutableBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for y in 0..<height {
                for x in 0..<width {
                    let h = Double(x) / Double(width) * 6, v = 1 - Double(y) / Double(height) * 0.8
                    let i = Int(h) % 6, f = h - Double(Int(h))
                    let (r, g, bl): (Double, Double, Double) = [(1, f, 0), (1 - f, 1, 0), (0, 1, f), (0, 1 - f, 1), (f, 0, 1), (1, 0, 1 - f)][i]
                    var c = (r * v, g * v, bl * v)
                    if y > height * 3 / 4 { let g = Double(x) / Double(width); c = (g, g, g) }
                    let dx = x - width / 2, dy = y - height * 3 / 8
                    if dx * dx + dy * dy < (height / 6) * (height / 6) { c = (1, 1, 1) }
                    p[y * stride + x] = 0xFF00_0000 | UInt32(c.0 * 255) << 16 | UInt32(c.1 * 255) << 8 | UInt32(c.2 * 255)
                }
            }
        }
        return f
    }
}
