import Detection
import Effects
import Foundation
import FrameCore
import FrameSource
import MediaInput
import Render
import Sinks

/// The input kept open for the page's stills: one decoder that a scrub moves along (a
/// tick just after the last one decodes on rather than seeking back to a key frame), and
/// the last few stills' PNGs, for a hand that goes back and forth. Used only on the
/// stills' thread (``StillQueue``), one still at a time.
final class StillInput: @unchecked Sendable {
    private let media: MediaInput
    private let configuration: FrameSource.Configuration
    private var reader: StillReader?
    private let encoder = ImageEncoder()
    private var recent: [(key: String, png: [UInt8])] = []
    /// How many stills are kept (3 to 8 MB each at 1080p).
    static let kept = 12

    init(media: MediaInput, configuration: FrameSource.Configuration) {
        self.media = media
        self.configuration = configuration
    }

    /// The still at `time` through `chain` (built by `makeChain`) with the boxes of the
    /// detections file at the path `reviewed` (read by `loadReviewed`)
    /// as `format`: as PNG, the bytes `vidfx dump --at` writes.
    /// `files` names what the chain's files hold now (``StudioServer``'s identities of
    /// them): a shader saved again, or typed again, under its name is another still.
    func image(at time: Rational, chainText: String, files: String = "", reviewed: String?, frameRate: Double, format: StillImage,
               makeChain: (String) throws -> EffectChain?, loadReviewed: (String) throws -> DetectionsFile) throws -> [UInt8] {
        let key = "\(format)|\(time)|\(chainText)|\(files)|\(reviewed.map { Self.identity(of: $0) } ?? "")"
        if let i = recent.firstIndex(where: { $0.key == key }) {
            let hit = recent.remove(at: i)
            recent.append(hit)
            return hit.png
        }
        let chain = try makeChain(chainText)
        let file = try reviewed.map(loadReviewed)
        let stage = try DetectionStage.make(chain: chain, settings: DetectionSettings(), reviewed: file,
                                            frameRate: frameRate, overwrite: false)
        if reader == nil { reader = try StillReader(input: media, configuration: configuration) }
        let frame: Frame
        do {
            frame = try Renderer.still(from: reader!, at: time, chain: chain, detection: stage, input: media.location)
        } catch let error as RenderError {
            throw error
        } catch {
            // A reader that failed to read may stand anywhere: the next still opens afresh.
            reader = nil
            throw error
        }
        let image = format == .png ? try encoder.encode(frame, as: .png) : StillImage.bmp(frame)
        recent.append((key, image))
        if recent.count > Self.kept { recent.removeFirst() }
        return image
    }

    /// A file's path, size and change time: a file saved again under its name is another file.
    static func identity(of path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return path }
        return "\(path):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }
}
