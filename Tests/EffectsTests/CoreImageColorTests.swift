import Effects
import Foundation
import FrameCore
import Testing

/// Spec part B colour filters: formula (both spaces), identity, FFmpeg oracles.
@Suite struct CoreImageColorTests {
    static func dec(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
    static func enc(_ l: Double) -> Double { let l = max(0, l); return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055 }
    static func q(_ v: Double) -> Int { min(max(Int((v * 255 + 0.5).rounded(.down)), 0), 255) }

    /// Largest error of `chain` against `op` (on values in the chosen space), per pixel.
    static func error(_ chain: String, linear: Bool, _ op: (Double, Double, Double) -> (Double, Double, Double)) throws -> Int {
        let source = Fixture.random()
        let out = try Fixture.apply(chain + (linear ? ":space=linear" : ""), to: source)
        return Fixture.maxError(out, source: source) { x, y in
            let p = source.pixel(x: x, y: y)
            let c = [p.r, p.g, p.b].map { Double($0) / 255 }.map { linear ? dec($0) : $0 }
            let o = op(c[0], c[1], c[2])
            let e = [o.0, o.1, o.2].map { linear ? enc($0) : $0 }
            return (q(e[0]), q(e[1]), q(e[2]))
        }
    }

    @Test(arguments: [false, true])
    func formulasHoldInBothSpaces(linear: Bool) throws {
        let g = pow(2, 0.7)
        #expect(try Self.error("exposure=0.7", linear: linear) { ($0 * g, $1 * g, $2 * g) } <= 1)
        #expect(try Self.error("gamma=1.8", linear: linear) { (pow($0, 1.8), pow($1, 1.8), pow($2, 1.8)) } <= 1)
        let t = 73.0 * .pi / 180, c = cos(t), s = sin(t), k = (1 - c) / 3, qq = s / 3.0.squareRoot()
        #expect(try Self.error("hue=73", linear: linear) { r, g, b in
            ((c + k) * r + (k - qq) * g + (k + qq) * b, (k + qq) * r + (c + k) * g + (k - qq) * b, (k - qq) * r + (k + qq) * g + (c + k) * b)
        } <= 1)
        #expect(try Self.error("colorcontrols:saturation=1.4:brightness=0.05:contrast=1.3", linear: linear) { r, g, b in
            let l = 0.2126 * r + 0.7152 * g + 0.0722 * b
            func f(_ v: Double) -> Double { ((l + (v - l) * 1.4) + 0.05 - 0.5) * 1.3 + 0.5 }
            return (f(r), f(g), f(b))
        } <= 1)
        for a in [0.6, -0.5] {
            #expect(try Self.error("vibrance=\(a)", linear: linear) { r, g, b in
                let sat = max(r, g, b) - min(r, g, b), l = 0.2126 * r + 0.7152 * g + 0.0722 * b
                let f = 1 + a * (1 - (a < 0 ? -1 : 1) * sat)
                return (l + (r - l) * f, l + (g - l) * f, l + (b - l) * f)
            } <= 1)
        }
    }

    /// `vignette` against its formula in Double, in both spaces, off-centre and centred:
    /// `c·(1 − intensity·smoothstep(radius, radius + softness, r))`, `r` the distance from
    /// the centre over the half-diagonal. Intensity 0 is the identity; the centre pixel of
    /// a centred vignette is untouched, and the corners darken the most.
    @Test(arguments: [false, true])
    func vignetteFollowsItsFormula(linear: Bool) throws {
        let source = Fixture.random()
        let (w, h) = (Double(source.width), Double(source.height))
        for (intensity, radius, softness, cx, cy) in [(0.6, 0.4, 0.5, 0.5, 0.5), (1.0, 0.1, 0.3, 0.2, 0.7)] {
            let chain = "vignette:intensity=\(intensity):radius=\(radius):softness=\(softness):x=\(cx):y=\(cy):space=\(linear ? "linear" : "encoded")"
            let out = try Fixture.apply(chain, to: source)
            let error = Fixture.maxError(out, source: source) { x, y in
                let r = hypot(Double(x) + 0.5 - cx * w, Double(y) + 0.5 - cy * h) / (hypot(w, h) / 2)
                let t = min(max((r - radius) / softness, 0), 1)
                let f = 1 - intensity * t * t * (3 - 2 * t)
                let p = source.pixel(x: x, y: y)
                let c = [p.r, p.g, p.b].map { Double($0) / 255 }.map { linear ? Self.enc(Self.dec($0) * f) : $0 * f }
                return (Self.q(c[0]), Self.q(c[1]), Self.q(c[2]))
            }
            #expect(error <= 1, "\(chain): off by \(error)")
        }
        #expect(Fixture.sameBytes(try Fixture.apply("vignette:intensity=0", to: source), source))
        let centred = try Fixture.apply("vignette:intensity=1:radius=0:softness=1", to: source)
        #expect(Fixture.difference(centred, source) > 0)
        let corner = centred.pixel(x: 0, y: 0)
        #expect(corner.r <= 1 && corner.g <= 1 && corner.b <= 1, "the corners are black at full intensity: \(corner)")
    }

    @Test(arguments: ["exposure", "gamma", "hue", "colorcontrols", "vibrance"])
    func defaultsAreExactlyTheIdentity(name: String) throws {
        let source = Fixture.random()
        for space in ["encoded", "linear"] {
            #expect(Fixture.sameBytes(try Fixture.apply("\(name):space=\(space)", to: source), source), "\(name) in \(space)")
        }
    }

    @Test func anglesTakeDegreesOrRadians() throws {
        let source = Fixture.random()
        let deg = try Fixture.apply("hue=90", to: source)
        #expect(Fixture.sameBytes(try Fixture.apply("hue=90deg", to: source), deg))
        #expect(Fixture.difference(try Fixture.apply("hue=\(Double.pi / 2)rad", to: source), deg) == 0)
        #expect(throws: EffectError.self) { try EffectChain(parsing: "hue=90grad") }
        // +120° turns pure red into pure green.
        var red = Frame(width: 1, height: 1)
        red.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(0xFFFF_0000), as: UInt32.self) }
        #expect(try Fixture.apply("hue=120", to: red).pixel(x: 0, y: 0) == (0, 255, 0, 255))
    }

    @Test func matchFFmpegOracles() async throws {
        let source = Fixture.random()
        let D = "if(lte(val/255,0.04045),val/255/12.92,pow((val/255+0.055)/1.055,2.4))"
        func encoded(_ x: String) -> String { "if(lte(\(x),0.0031308),\(x)*12.92,1.055*pow(\(x),1/2.4)-0.055)" }
        // Exposure, linear: exact against lutrgb.
        let e = "clip(floor(255*\(encoded("(\(D))*pow(2,0.7)"))+0.5),0,255)"
        #expect(Fixture.difference(try Fixture.apply("exposure=0.7:space=linear", to: source),
                                   try await Fixture.ffmpeg(source, filter: "lutrgb=r='\(e)':g='\(e)':b='\(e)'")) == 0)
        // Exposure, encoded: FFmpeg's exposure filter (±1, it truncates).
        #expect(Fixture.difference(try Fixture.apply("exposure=0.7", to: source), try await Fixture.ffmpeg(source, filter: "exposure=exposure=0.7")) <= 1)
        // Gamma: exact against lutrgb.
        let gm = "clip(floor(255*pow(val/255,1.8)+0.5),0,255)"
        #expect(Fixture.difference(try Fixture.apply("gamma=1.8", to: source), try await Fixture.ffmpeg(source, filter: "lutrgb=r='\(gm)':g='\(gm)':b='\(gm)'")) == 0)
        // Hue at 120°: colorchannelmixer with the rotation's entries.
        let c = cos(2 * Double.pi / 3), s = sin(2 * Double.pi / 3), k = (1 - c) / 3, q = s / 3.0.squareRoot()
        let mix = "colorchannelmixer=rr=\(c + k):rg=\(k - q):rb=\(k + q):gr=\(k + q):gg=\(c + k):gb=\(k - q):br=\(k - q):bg=\(k + q):bb=\(c + k)"
        #expect(Fixture.difference(try Fixture.apply("hue=120", to: source), try await Fixture.ffmpeg(source, filter: mix)) <= 1)
        // Colour controls: the spec's geq (exact).
        let L = "(0.2126*r(X,Y)+0.7152*g(X,Y)+0.0722*b(X,Y))"
        let cc = geq3("clip(floor(((((\(L))+(ch(X,Y)-(\(L)))*1.4)/255+0.05-0.5)*1.3+0.5)*255+0.5),0,255)")
        #expect(Fixture.difference(try Fixture.apply("colorcontrols:saturation=1.4:brightness=0.05:contrast=1.3", to: source),
                                   try await Fixture.ffmpeg(source, filter: cc)) <= 1)
        // Vibrance: FFmpeg's vibrance with Rec.709 weights (±1, it truncates).
        #expect(Fixture.difference(try Fixture.apply("vibrance=0.6", to: source),
                                   try await Fixture.ffmpeg(source, filter: "vibrance=intensity=0.6:alternate=1:rlum=0.2126:glum=0.7152:blum=0.0722")) <= 1)
    }
}
