@testable import Effects
import Foundation
import TestSupport
import FrameCore
import Testing

/// Colour effects against the spec's formulas and ffmpeg's filters.
@Suite struct ColorEffectTests {
    let source = Fixture.random()

    @Test(arguments: [1.0, 0.5, 0.0])
    func sepiaFollowsTheFormula(amount: Double) throws {
        let out = try Fixture.apply("sepia=\(amount)", to: source)
        let m = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
        let err = Fixture.maxError(out, source: source) { x, y in
            let (r, g, b) = Fixture.rgb(source, x, y)
            let c = [r / 255, g / 255, b / 255]
            let s = m.map { row in min(max(row[0] * c[0] + row[1] * c[1] + row[2] * c[2], 0), 1) }
            return (Fixture.q((1 - amount) * c[0] + amount * s[0]), Fixture.q((1 - amount) * c[1] + amount * s[1]),
                    Fixture.q((1 - amount) * c[2] + amount * s[2]))
        }
        #expect(err <= 1)
        if amount == 0 { #expect(Fixture.sameBytes(out, source)) }
    }

    @Test func sepiaMatchesColorChannelMixer() async throws {
        let out = try Fixture.apply("sepia", to: source)
        let ref = try await Fixture.ffmpeg(source, filter: "colorchannelmixer=rr=.393:rg=.769:rb=.189:gr=.349:gg=.686:gb=.168:br=.272:bg=.534:bb=.131")
        #expect(Fixture.difference(out, ref) <= 1)
    }

    @Test(arguments: [2.0, 6.0, 10.0, 256.0])
    func posterizeIsExact(levels: Double) throws {
        let out = try Fixture.apply("posterize=\(levels)", to: source)
        let err = Fixture.maxError(out, source: source) { x, y in
            let (r, g, b) = Fixture.rgb(source, x, y)
            func p(_ v: Double) -> Int { Fixture.q(((v / 255 * (levels - 1)) + 0.5).rounded(.down) / (levels - 1)) }
            return (p(r), p(g), p(b))
        }
        #expect(err == 0)
        if levels == 256 { #expect(Fixture.sameBytes(out, source)) }
    }

    @Test func posterizeMatchesLutrgb() async throws {
        let out = try Fixture.apply("posterize=6", to: source)
        let e = "floor(floor(val/255*5+0.5)*255/5+0.5)"
        #expect(Fixture.difference(out, try await Fixture.ffmpeg(source, filter: "lutrgb=r='\(e)':g='\(e)':b='\(e)'")) == 0)
    }

    @Test(arguments: [0.5, 0.25, 0.9])
    func thresholdIsExactAgainstGeq(t: Double) async throws {
        let out = try Fixture.apply("threshold=\(t)", to: source)
        let ref = try await Fixture.ffmpeg(source, filter: geq3("255*gte(0.2126*r(X,Y)+0.7152*g(X,Y)+0.0722*b(X,Y),\(255 * t))"))
        #expect(Fixture.difference(out, ref) == 0)
    }

    @Test func solarizeWithoutLUTInvertsDarkPixels() async throws {
        let out = try Fixture.apply("solarize", to: source)
        let ref = try await Fixture.ffmpeg(source, filter: geq3("if(lte(0.2126*r(X,Y)+0.7152*g(X,Y)+0.0722*b(X,Y),127.5),255-ch(X,Y),ch(X,Y))"))
        #expect(Fixture.difference(out, ref) == 0)
    }

    @Test func fusedAndUnfusedChainsGiveIdenticalBytes() throws {
        let chain = "sepia=0.7,posterize=5,threshold=0.4,solarize:threshold=0.6"
        let fused = try Fixture.apply(chain, to: source, fuse: true)
        let separate = try Fixture.apply(chain, to: source, fuse: false)
        #expect(Fixture.sameBytes(fused, separate))
        // and the chain is really the composition
        var step = source
        for e in chain.split(separator: ",") { step = try Fixture.apply(String(e), to: step) }
        #expect(Fixture.sameBytes(fused, step))
    }

    @Test func wideFramesCrossSpanBoundaries() throws {
        // Wider than one fused span (1024 px) so every span boundary is exercised.
        let wide = Fixture.random(width: 2500, height: 20)
        let fused = try Fixture.apply("sepia=0.6,posterize=4", to: wide)
        let separate = try Fixture.apply("sepia=0.6,posterize=4", to: wide, fuse: false)
        #expect(Fixture.sameBytes(fused, separate))
    }
}

@Suite struct LUTTests {
    let source = Fixture.random()

    func writeCube(_ lut: LUT3D, title: String = "test") throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-\(UUID().uuidString).cube").path
        var text = "TITLE \"\(title)\"\nLUT_3D_SIZE \(lut.size)\n"
        for i in 0..<(lut.size * lut.size * lut.size) {
            text += String(format: "%.6f %.6f %.6f\n", lut.values[3 * i], lut.values[3 * i + 1], lut.values[3 * i + 2])
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A non-trivial grade: channel swap, gamma and a cross term.
    func grade(size: Int) -> LUT3D {
        let id = LUT3D.identity(size: size)
        var v = id.values
        for i in 0..<(size * size * size) {
            let r = id.values[3 * i], g = id.values[3 * i + 1], b = id.values[3 * i + 2]
            v[3 * i] = powf(g, 0.8)
            v[3 * i + 1] = 0.7 * b + 0.3 * r * r
            v[3 * i + 2] = min(1, r * 0.9 + 0.1)
        }
        return LUT3D(size: size, values: v)
    }

    @Test(arguments: ["tetrahedral", "trilinear", "nearest"])
    func identityCubeIsExact(interp: String) throws {
        let path = try writeCube(LUT3D.identity(size: 17))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let out = try Fixture.apply("lut:file=\(path):interp=\(interp)", to: source)
        if interp == "nearest" {
            // nearest on a 17-point grid snaps values; only the grid values themselves survive
            #expect(out.pixel(x: 0, y: 0) == source.pixel(x: 0, y: 0))
        } else {
            #expect(Fixture.sameBytes(out, source))
        }
    }

    @Test(arguments: ["tetrahedral", "trilinear"])
    func realCubeMatchesLut3d(interp: String) async throws {
        let path = try writeCube(grade(size: 17))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let out = try Fixture.apply("lut:file=\(path):interp=\(interp)", to: source)
        let ref = try await Fixture.ffmpeg(source, filter: "lut3d=file=\(path):interp=\(interp)")
        #expect(Fixture.difference(out, ref) <= 1)
    }

    /// Line ends of every kind, comments, tabs and blank lines read the same cube; an error
    /// names the line as an editor counts it.
    @Test func cubeTextReadsTheSameWhateverTheLineEnds() throws {
        let lut = grade(size: 3)
        var lines = ["# graded", "TITLE \"t\"", "", "LUT_3D_SIZE 3", "DOMAIN_MIN 0 0 0 # comment"]
        for i in 0..<27 { lines.append(String(format: "%.6f\t%.6f %.6f", lut.values[3 * i], lut.values[3 * i + 1], lut.values[3 * i + 2])) }
        let unix = try LUT3D.parseCube(lines.joined(separator: "\n") + "\n", name: "unix.cube")
        #expect(unix.size == 3 && unix.values.count == 81)
        for (v, w) in zip(unix.values, lut.values) { #expect(abs(v - w) < 1e-5) }
        #expect(try LUT3D.parseCube(lines.joined(separator: "\r\n"), name: "dos.cube") == unix)
        #expect(try LUT3D.parseCube(lines.joined(separator: "\r"), name: "mac.cube") == unix)
        var broken = lines
        broken[7] = "0.5 0.5"
        #expect(throws: EffectError.self) { try LUT3D.parseCube(broken.joined(separator: "\r\n"), name: "broken.cube") }
        do {
            _ = try LUT3D.parseCube(broken.joined(separator: "\r\n"), name: "broken.cube")
        } catch {
            #expect("\(error)".contains("line 8"), "\(error)")
        }
    }

    /// The C kernel against LUTTable's Swift reference, for every interpolation and a mix:
    /// a million random colours, and every colour whose channels are 0, 1, 127, 128, 254
    /// or 255 (the grid's ends and middle).
    @Test(arguments: ["tetrahedral", "trilinear", "nearest"], [Float(1), 0.7])
    func cKernelGivesTheReferenceBytes(interp: String, intensity: Float) throws {
        let table = LUTTable(cube: grade(size: 17), interpolation: LUTInterpolation(rawValue: interp)!)
        var rng = SeededGenerator("cKernelGivesTheReferenceBytes \(interp) \(intensity)", seed: 1_000_000)
        var colours = (0..<1_000_000).map { _ in UInt32.random(in: 0...UInt32.max, using: &rng) }
        let ends: [UInt32] = [0, 1, 127, 128, 254, 255]
        for r in ends { for g in ends { for b in ends { colours.append(0x8000_0000 | r << 16 | g << 8 | b) } } }
        var fast = colours, reference = colours
        fast.withUnsafeMutableBufferPointer { table.apply($0.baseAddress!, count: $0.count, intensity: intensity) }
        reference.withUnsafeMutableBufferPointer { table.referenceApply($0.baseAddress!, count: $0.count, intensity: intensity) }
        let differing = zip(fast, reference).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) of \(colours.count) colours differ")
        #expect(zip(fast, colours).filter { $0 != $1 }.count > colours.count / 2, "the LUT changed the colours")
    }

    /// 512×512 frames go through the colour cache (on every core at once); 64×64 frames
    /// interpolate every pixel. Random pixels (each colour met about once, slots taken over
    /// by other colours all the time) and a 200-colour picture (nearly all hits), each
    /// through the same effect twice: every pixel as the direct interpolation has it.
    @Test func colourCacheGivesTheSameBytesAsInterpolation() throws {
        let path = try writeCube(grade(size: 9))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let chain = try EffectChain(parsing: "lut:file=\(path):intensity=0.7")
        var palette = Fixture.random(width: 512, height: 512, seed: 7)
        var rng = SeededGenerator("colourCacheGivesTheSameBytesAsInterpolation", seed: 200)
        let colours = (0..<200).map { _ in UInt32.random(in: 0...0xFFFFFF, using: &rng) | 0xFF00_0000 }
        let rowPixels = palette.bytesPerRow / 4
        palette.withUnsafeMutableBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for y in 0..<512 { for x in 0..<512 { p[y * rowPixels + x] = colours[(x / 5 + y / 7) % colours.count] } }
        }
        for (name, picture) in [("random", Fixture.random(width: 512, height: 512, seed: 99)), ("palette", palette)] {
            let first = chain.apply(to: picture), second = chain.apply(to: picture)
            for ty in 0..<8 { for tx in 0..<8 {
                var tile = Frame(width: 64, height: 64)
                let stride = tile.bytesPerRow / 4
                tile.withUnsafeMutableBytes { b in
                    let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
                    for y in 0..<64 { for x in 0..<64 {
                        let q = picture.pixel(x: tx * 64 + x, y: ty * 64 + y)
                        p[y * stride + x] = UInt32(q.b) | UInt32(q.g) << 8 | UInt32(q.r) << 16 | UInt32(q.a) << 24
                    } }
                }
                let direct = chain.apply(to: tile)
                for y in 0..<64 { for x in 0..<64 {
                    let want = direct.pixel(x: x, y: y)
                    if first.pixel(x: tx * 64 + x, y: ty * 64 + y) != want || second.pixel(x: tx * 64 + x, y: ty * 64 + y) != want {
                        Issue.record("\(name): pixel \(tx * 64 + x),\(ty * 64 + y) differs from the direct interpolation")
                        return
                    }
                } }
            } }
            #expect(!Fixture.sameBytes(first, picture), "\(name): the LUT changed the picture")
        }
    }

    @Test func solarizeKeyIsATrilinearLUT() throws {
        let path = try writeCube(grade(size: 17))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let keyed = try Fixture.apply("solarize:lut=\(path):intensity=0.6", to: source)
        let graded = try Fixture.apply("lut:file=\(path):interp=trilinear:intensity=0.6", to: source)
        #expect(Fixture.sameBytes(keyed, graded))
    }

    @Test func intensityZeroIsIdentity() throws {
        let path = try writeCube(grade(size: 9))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(Fixture.sameBytes(try Fixture.apply("lut:file=\(path):intensity=0", to: source), source))
    }

    @Test func haldAndGridImagesLoad() throws {
        // Hald level 4: 64×64 image, 16³ cube; identity pixels decode to the identity LUT.
        var hald = Frame(width: 64, height: 64)
        let haldStride = hald.bytesPerRow / 4
        hald.withUnsafeMutableBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for i in 0..<4096 {
                let r = UInt32(i % 16 * 17), g = UInt32(i / 16 % 16 * 17), bl = UInt32(i / 256 * 17)
                p[(i / 64) * haldStride + i % 64] = 0xFF00_0000 | r << 16 | g << 8 | bl
            }
        }
        let lut = try LUT3D.fromImage(hald, name: "hald")
        #expect(lut.size == 16)
        #expect(lut == LUT3D.identity(size: 16) || zip(lut.values, LUT3D.identity(size: 16).values).allSatisfy { abs($0 - $1) < 1e-6 })
        var grid = Frame(width: 512, height: 512)
        let gridStride = grid.bytesPerRow / 4
        grid.withUnsafeMutableBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for y in 0..<512 { for x in 0..<512 {
                let r = UInt32((x % 64) * 255 / 63), g = UInt32((y % 64) * 255 / 63), bl = UInt32((y / 64 * 8 + x / 64) * 255 / 63)
                p[y * gridStride + x] = 0xFF00_0000 | r << 16 | g << 8 | bl
            } }
        }
        let g = try LUT3D.fromImage(grid, name: "grid")
        #expect(g.size == 64)
        // entry (r=5, g=9, b=20)
        let i = 5 + 9 * 64 + 20 * 64 * 64
        #expect(abs(g.values[3 * i] - Float(5 * 255 / 63) / 255) < 1e-6)
        #expect(abs(g.values[3 * i + 2] - Float(20 * 255 / 63) / 255) < 1e-6)
    }

    @Test func badFilesFailClearly() throws {
        #expect(throws: EffectError.self) { try EffectChain(parsing: "lut:file=/nonexistent.cube") }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-bad-\(UUID().uuidString).cube").path
        try "LUT_3D_SIZE 3\n0 0 0\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try EffectChain(parsing: "lut:file=\(path)")
            Issue.record("short cube accepted")
        } catch {
            #expect(error.message.contains("needs 27 entries"))
        }
    }
}

/// Colour passes write in place only when no other frame shares the pixels.
@Suite struct InPlaceChainTests {
    @Test func inPlaceEqualsCopyAndLeavesSharedFramesAlone() throws {
        let chain = try EffectChain(parsing: "sepia,posterize,pixelate=4,solarize")
        let original = Fixture.random(width: 67, height: 45)
        let expected = chain.apply(to: original)  // `original` is shared here: rendered into new frames
        var unique = Frame(width: 67, height: 45)
        unique.withUnsafeMutableBytes { d in original.withUnsafeBytes { s in d.copyMemory(from: s) } }
        chain.apply(to: &unique)
        #expect(Fixture.sameBytes(unique, expected))
        #expect(Fixture.sameBytes(original, Fixture.random(width: 67, height: 45)), "the shared source is untouched")
    }
}

@Suite struct PosterizeFractionalTests {
    /// A fractional level count must not push the top level past white (it crashed).
    @Test(arguments: [2.5, 7.6, 11.6, 29.9])
    func fractionalLevelsStayInRange(levels: Double) throws {
        let source = Fixture.random()
        let out = try Fixture.apply("posterize=\(levels)", to: source)
        let steps = levels - 1
        func level(_ v: UInt8) -> Int {
            let q = min(1, (Double(v) / 255 * steps + 0.5).rounded(.down) / steps)
            return Int((q * 255 + 0.5).rounded(.down))
        }
        let err = Fixture.maxError(out, source: source) { x, y in
            let p = source.pixel(x: x, y: y)
            return (level(p.r), level(p.g), level(p.b))
        }
        #expect(err == 0)
    }
}
