import CFFmpeg
import CFFmpegShim
import CPixelKernels
import Foundation
import FrameCore
import MediaInput

extension FrameSource {
    /// What happens to HDR video (HLG or PQ transfer) when it becomes BGRA.
    public enum ToneMapping: String, Sendable, CaseIterable {
        /// Tone-map HDR to SDR BT.709 with ``mobius``: HDR reference white (203 nits,
        /// BT.2408) becomes SDR white, mid-tones stay as graded, highlights above roll
        /// off instead of clipping. Chosen by measurement: on SDR footage carried as HLG
        /// and PQ, it comes back at 30 and 29 dB PSNR, where a plain conversion scores
        /// 23 dB and Hable's curve 18 dB (docs/real-world.md). SDR passes untouched.
        case auto
        /// No tone mapping: the HDR signal is converted as if it were SDR (flat, washed out).
        case off
        /// John Hable's filmic curve (Uncharted 2): soft shoulder, kept contrast.
        case hable
        /// Möbius: exact up to 0.3 of reference white, then a smooth roll-off to the peak.
        case mobius
        /// Reinhard: x / (1 + x), simple and gentle.
        case reinhard
        /// Clips everything above reference white: exact up to white, highlights lost.
        case clip

        /// The operator this choice runs, or nil for none.
        var curve: String? {
            switch self {
            case .auto: return "mobius"
            case .off: return nil
            default: return rawValue
            }
        }
    }

    /// How the tone map is computed.
    public enum ToneMapEngine: String, Sendable, CaseIterable {
        /// A 65³ table filled once per clip with libavfilter's own conversion (zimg and
        /// the `tonemap` filter's curve), then interpolated per pixel: libavfilter's result
        /// at a fraction of its cost.
        case table
        /// libavfilter's zscale + tonemap chain on every frame: the reference.
        case libavfilter
    }
}

/// The colour tags of a video stream, for frames that carry none of their own.
struct StreamColor: Sendable, Equatable {
    var transfer: AVColorTransferCharacteristic = AVCOL_TRC_UNSPECIFIED
    var primaries: AVColorPrimaries = AVCOL_PRI_UNSPECIFIED
    var matrix: AVColorSpace = AVCOL_SPC_UNSPECIFIED
    var range: AVColorRange = AVCOL_RANGE_UNSPECIFIED
    /// The brightest the content gets in nits, from its light-level or mastering metadata.
    var contentPeakNits: Double?

    /// "HLG", "PQ", or nil for SDR.
    var hdrName: String? {
        switch transfer {
        case AVCOL_TRC_ARIB_STD_B67: return "HLG"
        case AVCOL_TRC_SMPTE2084: return "PQ"
        default: return nil
        }
    }

    /// The peak the tone map assumes without `--peak`: the content's metadata, else
    /// 1000 nits (HLG's reference display, and what most PQ is mastered for).
    var defaultPeakNits: Double { contentPeakNits.map { min(max($0, 100), 10000) } ?? 1000 }

    /// The tags of `frame`, each unspecified one taken from `stream`.
    static func of(_ frame: UnsafePointer<AVFrame>, stream: StreamColor) -> StreamColor {
        var c = stream
        if frame.pointee.color_trc != AVCOL_TRC_UNSPECIFIED { c.transfer = frame.pointee.color_trc }
        if frame.pointee.color_primaries != AVCOL_PRI_UNSPECIFIED { c.primaries = frame.pointee.color_primaries }
        if frame.pointee.colorspace != AVCOL_SPC_UNSPECIFIED { c.matrix = frame.pointee.colorspace }
        if frame.pointee.color_range != AVCOL_RANGE_UNSPECIFIED { c.range = frame.pointee.color_range }
        return c
    }
}

/// HDR (HLG, PQ; BT.2020) to SDR BT.709 BGRA. libavfilter's zscale + tonemap is the
/// reference; the shipped engine computes what that chain gives at each point of a 3-D
/// grid over the signal's R'G'B' once per clip (with zimg, zscale's own library, and the
/// filter's curve) and interpolates the table per pixel in C, on every core.
final class ToneMap {
    let color: StreamColor
    let curve: String
    let peakNits: Double
    let engine: FrameSource.ToneMapEngine
    /// The libavfilter chain from tagged Y'CbCr to BT.709 R'G'B' (float planes).
    let chain: String
    /// The same up to the tone curve's output: linear BT.709, what the table holds.
    let linearChain: String
    private var table: [Float] = []
    /// The table being built on a thread of its own since ``prepare(input:)``.
    private var preparing: PreparedTable?
    /// Linear light to 8-bit BT.709 codes, by the float's bits (VFX_TABLE3D_TRANSFER_BITS
    /// per octave above VFX_TABLE3D_TRANSFER_FLOOR), each step's middle. zimg takes BT.709
    /// as display-referred, so this is BT.1886's inverse (a pure 2.4 gamma), not the
    /// camera's OETF.
    private static let transfer: [UInt8] = (0..<Int(VFX_TABLE3D_TRANSFER_SIZE)).map { i in
        let shift = 23 - Int(VFX_TABLE3D_TRANSFER_BITS)
        let first = Int(VFX_TABLE3D_TRANSFER_FLOOR.bitPattern) >> shift
        let light = Double(Float(bitPattern: UInt32(((first + i) << shift) | (1 << (shift - 1)))))
        return UInt8((pow(min(light, 1), 1 / 2.4) * 255).rounded())
    }
    private var graph: FilterGraph?
    private var graphKey: (Int32, Int32, Int32)?

    init(color: StreamColor, curve: String, peakNits: Double, engine: FrameSource.ToneMapEngine) {
        self.color = color
        self.curve = curve
        self.peakNits = peakNits
        self.engine = engine
        chain = ToneMap.chain(curve: curve, peakNits: peakNits)
        linearChain = ToneMap.linearChain(curve: curve, peakNits: peakNits)
    }

    /// ``chain(curve:peakNits:)`` without the final transfer: linear-light BT.709 floats.
    static func linearChain(curve: String, peakNits: Double) -> String {
        "zscale=t=linear:npl=\(Int(referenceWhite)),format=gbrpf32le,zscale=p=bt709,"
            + "tonemap=tonemap=\(curve):desat=0:peak=\(peakNits / referenceWhite),format=gbrpf32le"
    }

    /// HDR reference white in nits (ITU-R BT.2408: diffuse white, 75% HLG), which
    /// becomes SDR white.
    static let referenceWhite = 203.0

    /// zscale to linear light (1.0 = reference white), to BT.709 primaries, the curve
    /// with the peak given explicitly (FFmpeg 5.1 guesses for any untagged linear
    /// input), no desaturation, then BT.709's transfer, full-range RGB.
    static func chain(curve: String, peakNits: Double) -> String {
        linearChain(curve: curve, peakNits: peakNits) + ",zscale=t=bt709:m=bt709:r=pc,format=gbrpf32le"
    }

    /// Whether the table engine reads this picture: planar Y'CbCr, 8 to 16 bits
    /// little-endian, chroma at most halved each way, a plain matrix (not BT.2020's
    /// constant-luminance form).
    func tableReads(_ picture: UnsafePointer<AVFrame>) -> Bool {
        guard let d = av_pix_fmt_desc_get(AVPixelFormat(picture.pointee.format)) else { return false }
        let flags = d.pointee.flags
        guard flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0, flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0,
              flags & UInt64(AV_PIX_FMT_FLAG_BE) == 0, flags & UInt64(AV_PIX_FMT_FLAG_FLOAT) == 0,
              d.pointee.nb_components >= 3, d.pointee.log2_chroma_w <= 1, d.pointee.log2_chroma_h <= 1 else { return false }
        let depth = Int(d.pointee.comp.0.depth)
        let planes = (d.pointee.comp.0.plane, d.pointee.comp.1.plane, d.pointee.comp.2.plane)
        return depth >= 8 && depth <= 16 && planes == (0, 1, 2) && ToneMap.lumaWeights(color.matrix) != nil
    }

    /// Kr and Kb of a Y'CbCr matrix (BT.2020 when untagged, as HDR is).
    static func lumaWeights(_ matrix: AVColorSpace) -> (Double, Double)? {
        switch matrix {
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_UNSPECIFIED: return (0.2627, 0.0593)
        case AVCOL_SPC_BT709: return (0.2126, 0.0722)
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: return (0.299, 0.114)
        default: return nil
        }
    }

    /// The affine map from a pixel's 16-bit Y, Cb, Cr codes (samples of `depth` bits
    /// shifted up) to its R', G', B' table coordinates: 9 matrix entries by rows, then 3 offsets.
    func gridMap(depth: Int) -> [Float] {
        let (kr, kb) = ToneMap.lumaWeights(color.matrix) ?? (0.2627, 0.0593)
        let kg = 1 - kr - kb
        let full = color.range == AVCOL_RANGE_JPEG
        let unit = Double(1 << (16 - depth))  // one code of the source, in 16-bit codes
        let yScale = full ? 1 / (Double((1 << depth) - 1) * unit) : 1 / (219 * 256.0)
        let yZero = full ? 0 : 16 * 256.0
        let cScale = full ? 1 / (Double((1 << depth) - 1) * unit) : 1 / (224 * 256.0)
        let cZero = 32768.0
        // R' = Y + 2(1-Kr) Cr;  G' = Y - 2Kb(1-Kb)/Kg Cb - 2Kr(1-Kr)/Kg Cr;  B' = Y + 2(1-Kb) Cb
        let rows: [(Double, Double, Double)] = [(1, 0, 2 * (1 - kr)),
                                                (1, -2 * kb * (1 - kb) / kg, -2 * kr * (1 - kr) / kg),
                                                (1, 2 * (1 - kb), 0)]
        let perStep = 1 / Double(VFX_TABLE3D_STEP), low = Double(VFX_TABLE3D_LOW)
        var m: [Float] = []
        var offsets: [Float] = []
        for (a, b, c) in rows {
            let ay: Double = a * yScale * perStep
            let bc: Double = b * cScale * perStep
            let cc: Double = c * cScale * perStep
            m += [Float(ay), Float(bc), Float(cc)]
            let offset: Double = -ay * yZero - bc * cZero - cc * cZero - low * perStep
            offsets.append(Float(offset))
        }
        return m + offsets
    }

    /// Converts `picture` into `target` (BGRA, the picture's size).
    func convert(_ picture: UnsafePointer<AVFrame>, into target: inout Frame, input: String) throws(FrameSourceError) {
        if engine == .table, tableReads(picture) {
            if table.isEmpty { table = try readyTable(input: input) }
            applyTable(picture, into: &target, walk: nil)
        } else {
            try applyGraph(picture, into: &target, input: input)
        }
    }

    /// Whether ``convert(_:placing:into:input:)`` can take `picture`: the table engine
    /// rotates and mirrors as it goes; the reference chain cannot.
    func places(_ picture: UnsafePointer<AVFrame>) -> Bool { engine == .table && tableReads(picture) }

    /// Converts `picture` straight into `target` rotated or mirrored as `walk` says (its
    /// output size is the target's), with no upright picture between.
    func convert(_ picture: UnsafePointer<AVFrame>, placing walk: vfx_walk, into target: inout Frame, input: String) throws(FrameSourceError) {
        if table.isEmpty { table = try readyTable(input: input) }
        applyTable(picture, into: &target, walk: walk)
    }

    // MARK: the table

    /// Gets ready for the first picture on a thread of its own: builds the table (loading
    /// zimg), or for the reference engine loads libavfilter. The decoder's first pictures
    /// take longer, so the first frame does not wait for it.
    func prepare(input: String) {
        guard engine == .table else { return OnDemandLibrary.filters.loadInBackground() }
        guard table.isEmpty, preparing == nil else { return }
        let prepared = PreparedTable()
        preparing = prepared
        let (color, curve, peakNits) = (self.color, self.curve, self.peakNits)
        Thread {
            do throws(FrameSourceError) {
                prepared.finish(.success(try ToneMap.buildTable(color: color, curve: curve, peakNits: peakNits, input: input)))
            } catch {
                prepared.finish(.failure(error))
            }
        }.start()
    }

    /// The table: the one ``prepare(input:)`` started, once built, or one built now.
    private func readyTable(input: String) throws(FrameSourceError) -> [Float] {
        if let prepared = preparing {
            preparing = nil
            return try prepared.wait().get()
        }
        return try ToneMap.buildTable(color: color, curve: curve, peakNits: peakNits, input: input)
    }

    /// A table built on another thread, handed over once.
    private final class PreparedTable: @unchecked Sendable {
        private let condition = NSCondition()
        private var outcome: Result<[Float], FrameSourceError>?  // guarded by `condition`

        func finish(_ result: Result<[Float], FrameSourceError>) {
            condition.lock()
            outcome = result
            condition.broadcast()
            condition.unlock()
        }

        func wait() -> Result<[Float], FrameSourceError> {
            condition.lock()
            defer { condition.unlock() }
            while outcome == nil { condition.wait() }
            return outcome!
        }
    }

    /// The table: zimg (zscale's library) and the `tonemap` filter's curve in C over every
    /// grid point, the same values as ``referenceTable(color:linearChain:chain:input:)``
    /// without loading libavfilter and its eighty libraries (35 ms of a 0.6 s phone clip).
    static func buildTable(color: StreamColor, curve: String, peakNits: Double, input: String) throws(FrameSourceError) -> [Float] {
        let n = Int(VFX_TABLE3D_POINTS)
        let code: Int32
        switch curve {
        case "clip": code = Int32(VFX_TONE_CLIP)
        case "reinhard": code = Int32(VFX_TONE_REINHARD)
        case "hable": code = Int32(VFX_TONE_HABLE)
        default: code = Int32(VFX_TONE_MOBIUS)
        }
        let primaries = color.primaries == AVCOL_PRI_UNSPECIFIED ? AVCOL_PRI_BT2020 : color.primaries
        let reasonSize = 512
        var reason = [CChar](repeating: 0, count: reasonSize)
        var failed = false
        // Every entry is written by the C code: no zero fill first (4.4 MB of page faults).
        let table = [Float](unsafeUninitializedCapacity: n * n * n * 4) { buffer, count in
            failed = vfx_tone_table(buffer.baseAddress!, Int32(n), VFX_TABLE3D_LOW, VFX_TABLE3D_STEP, Int32(color.transfer.rawValue),
                                    Int32(primaries.rawValue), referenceWhite, code, peakNits / referenceWhite, &reason, reasonSize) != 0
            if failed { buffer.initialize(repeating: 0) }
            count = buffer.count
        }
        if failed {
            let why = reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw FrameSourceError(input: input, kind: .unsupportedCodec, reason: "cannot tone-map \(color.hdrName ?? "HDR") video: \(why)")
        }
        return table
    }

    /// The table as libavfilter's chain (to linear light) makes it, over one picture that
    /// holds every grid point as an R'G'B' colour: what ``buildTable(color:curve:peakNits:input:)``
    /// is checked against.
    static func referenceTable(color: StreamColor, linearChain: String, chain: String, input: String) throws(FrameSourceError) -> [Float] {
        let n = Int(VFX_TABLE3D_POINTS)
        var grid: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()
        var out: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()
        defer { av_frame_free(&grid); av_frame_free(&out) }
        guard let grid, let out else { throw FrameSourceError(input: input, kind: .decodeFailed, reason: "out of memory") }
        grid.pointee.format = AV_PIX_FMT_GBRPF32LE.rawValue
        grid.pointee.width = Int32(n * n)
        grid.pointee.height = Int32(n)
        grid.pointee.color_trc = color.transfer
        grid.pointee.color_primaries = color.primaries == AVCOL_PRI_UNSPECIFIED ? AVCOL_PRI_BT2020 : color.primaries
        grid.pointee.colorspace = AVCOL_SPC_RGB
        grid.pointee.color_range = AVCOL_RANGE_JPEG
        guard av_frame_get_buffer(grid, 0) >= 0 else { throw FrameSourceError(input: input, kind: .decodeFailed, reason: "out of memory") }
        func level(_ i: Int) -> Float { Float(VFX_TABLE3D_LOW + Double(i) * VFX_TABLE3D_STEP) }
        for row in 0..<n {
            // gbrp planes: G, B, R. Row = R' index; across: G' index * n + B' index.
            let g = UnsafeMutableRawPointer(vfx_frame_plane(grid, 0)! + row * Int(vfx_frame_linesize(grid, 0))).assumingMemoryBound(to: Float.self)
            let b = UnsafeMutableRawPointer(vfx_frame_plane(grid, 1)! + row * Int(vfx_frame_linesize(grid, 1))).assumingMemoryBound(to: Float.self)
            let r = UnsafeMutableRawPointer(vfx_frame_plane(grid, 2)! + row * Int(vfx_frame_linesize(grid, 2))).assumingMemoryBound(to: Float.self)
            for x in 0..<(n * n) {
                r[x] = level(row); g[x] = level(x / n); b[x] = level(x % n)
            }
        }
        do throws(FilterGraphError) {
            let g = try FilterGraph(linearChain, for: grid, timeBase: AVRational(num: 1, den: 30))
            try g.push(grid)
            try g.push(nil)
            guard try g.pull(into: out) else { throw FilterGraphError(chain: chain, reason: "the chain returned no picture") }
        } catch {
            throw FrameSourceError(input: input, kind: .unsupportedCodec, reason: "cannot tone-map \(color.hdrName ?? "HDR") video: \(error.reason)")
        }
        // gbrpf32: planes G, B, R.
        var table = [Float](repeating: 0, count: n * n * n * 4)
        for row in 0..<n {
            let planes = [2, 0, 1].map { p in
                UnsafeRawPointer(vfx_frame_plane(out, Int32(p))! + row * Int(vfx_frame_linesize(out, Int32(p)))).assumingMemoryBound(to: Float.self)
            }
            for x in 0..<(n * n) {
                let base = (row * n * n + x) * 4
                for c in 0..<3 {
                    let v = planes[c][x]
                    table[base + c] = v.isFinite ? v : 0
                }
            }
        }
        return table
    }

    /// The rows of `picture` through the table into `target`: upright, or each pixel stored
    /// at its place in the rotated or mirrored frame (`walk`).
    private func applyTable(_ picture: UnsafePointer<AVFrame>, into target: inout Frame, walk: vfx_walk?) {
        let d = av_pix_fmt_desc_get(AVPixelFormat(picture.pointee.format))!.pointee
        let depth = Int32(d.comp.0.depth)
        var planes = vfx_planes()
        planes.plane = (UnsafePointer(vfx_frame_plane(picture, 0)), UnsafePointer(vfx_frame_plane(picture, 1)), UnsafePointer(vfx_frame_plane(picture, 2)))
        planes.stride = (vfx_frame_linesize(picture, 0), vfx_frame_linesize(picture, 1), vfx_frame_linesize(picture, 2))
        planes.width = picture.pointee.width
        planes.height = picture.pointee.height
        planes.log2_cw = Int32(d.log2_chroma_w)
        planes.log2_ch = Int32(d.log2_chroma_h)
        planes.bytes = depth > 8 ? 2 : 1
        planes.depth = depth
        let siting = picture.pointee.chroma_location
        planes.centre_sited = siting == AVCHROMA_LOC_CENTER || siting == AVCHROMA_LOC_TOP || siting == AVCHROMA_LOC_BOTTOM ? 1 : 0
        planes.top_sited = siting == AVCHROMA_LOC_TOPLEFT || siting == AVCHROMA_LOC_TOP ? 1 : 0
        let map = gridMap(depth: Int(depth))
        let height = Int(picture.pointee.height), width = Int(picture.pointee.width)
        let stride = Int32(target.bytesPerRow)
        // Slices of rows, 8 per core and taken as cores come free, so that a core the
        // decoder's threads hold up does not hold up the frame; each has its own chroma rows.
        let slices = min(8 * max(1, ProcessInfo.processInfo.activeProcessorCount), max(1, height / 16))
        map.withUnsafeBufferPointer { mp in
        ToneMap.transfer.withUnsafeBufferPointer { curve in
        table.withUnsafeBufferPointer { t in
            target.withUnsafeMutableBytes { bytes in
                let dst = UnsafeMutableRawBufferPointer(bytes)
                nonisolated(unsafe) let base = dst.baseAddress!.assumingMemoryBound(to: UInt8.self)
                nonisolated(unsafe) let tp = t.baseAddress!
                nonisolated(unsafe) let cp = curve.baseAddress!
                nonisolated(unsafe) let gp = mp.baseAddress!
                nonisolated(unsafe) let p = planes
                DispatchQueue.concurrentPerform(iterations: slices) { s in
                    var local = p
                    var scratch = [UInt16](repeating: 0, count: 4 * width + 8)
                    let (first, end) = (Int32(height * s / slices), Int32(height * (s + 1) / slices))
                    scratch.withUnsafeMutableBufferPointer { sp in
                        if var w = walk {
                            let out = UnsafeMutableRawPointer(base).assumingMemoryBound(to: UInt32.self)
                            vfx_table3d_rows_placed(tp, cp, gp, &local, &w, out, Int(stride) / 4, first, end, sp.baseAddress!)
                        } else {
                            vfx_table3d_rows(tp, cp, gp, &local, base, stride, first, end, sp.baseAddress!)
                        }
                    }
                }
            }
        }
        }
        }
    }

    // MARK: the reference, per frame

    private func applyGraph(_ picture: UnsafePointer<AVFrame>, into target: inout Frame, input: String) throws(FrameSourceError) {
        var copy: UnsafeMutablePointer<AVFrame>? = av_frame_clone(picture)
        var out: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()
        defer { av_frame_free(&copy); av_frame_free(&out) }
        guard let copy, let out else { throw FrameSourceError(input: input, kind: .decodeFailed, reason: "out of memory") }
        copy.pointee.color_trc = color.transfer
        copy.pointee.color_primaries = color.primaries
        copy.pointee.colorspace = color.matrix
        copy.pointee.color_range = color.range
        do throws(FilterGraphError) {
            let key = (picture.pointee.format, picture.pointee.width, picture.pointee.height)
            if graph == nil || graphKey! != key {
                graph = try FilterGraph(chain, for: copy, timeBase: AVRational(num: 1, den: 90000), threads: 0)
                graphKey = key
            }
            try graph!.push(copy)
            guard try graph!.pull(into: out) else { throw FilterGraphError(chain: chain, reason: "the chain held the picture back") }
        } catch {
            throw FrameSourceError(input: input, kind: .unsupportedCodec, reason: "cannot tone-map \(color.hdrName ?? "HDR") video: \(error.reason)")
        }
        defer { av_frame_unref(out) }
        // gbrpf32 → BGRA, rounded to nearest.
        let rows = Int(out.pointee.height), width = Int(out.pointee.width)
        let dstStride = target.bytesPerRow
        target.withUnsafeMutableBytes { bytes in
            for y in 0..<rows {
                let row = (bytes.baseAddress! + y * dstStride).assumingMemoryBound(to: UInt8.self)
                for (p, offset) in [(0, 1), (1, 0), (2, 2)] {  // G, B, R planes into B, G, R, A bytes
                    let plane = UnsafeRawPointer(vfx_frame_plane(out, Int32(p))! + y * Int(vfx_frame_linesize(out, Int32(p))))
                        .assumingMemoryBound(to: Float.self)
                    for x in 0..<width {
                        let v = plane[x]
                        row[4 * x + offset] = UInt8((min(max(v.isNaN ? 0 : v, 0), 1) * 255).rounded())
                    }
                }
                for x in 0..<width { row[4 * x + 3] = 255 }
            }
        }
    }
}
