import CFFmpeg
import Foundation
import FrameCore
@testable import FrameSource
import MediaInput
import Testing

/// After a seek the decoder may skip pictures nothing refers to on the way to the target
/// (`AVDISCARD_NONREF`), which makes a seek cheaper than ffmpeg's -ss. The picture on screen
/// at the target must never be one of them, on a constant or a variable frame rate.
@Suite struct SeekSkipTests {
    /// Times of every picture the decoder gives, from where it stands, up to `until`.
    static func times(_ decoder: VideoDecoder, until: Rational) throws -> [Rational] {
        var frame = av_frame_alloc()
        defer { av_frame_free(&frame) }
        var times: [Rational] = []
        while try decoder.decode(into: frame!) {
            let t = decoder.time(of: frame!)
            times.append(t)
            if t > until { break }
        }
        return times
    }

    static func decoder(_ file: String) throws -> VideoDecoder {
        var configuration = FrameSource.Configuration()
        configuration.deinterlace = .off  // the rule without a deinterlacer's neighbour (that is DeinterlaceTests')
        return try VideoDecoder(input: MediaInput(TestMedia.path(file)), configuration: configuration, interrupt: InterruptFlag(timeout: .seconds(60)))
    }

    @Test(arguments: ["h264-30fps.mp4", "vfr.mp4"])
    func theTargetsPictureIsNeverSkipped(file: String) throws {
        let all = try Self.times(Self.decoder(file), until: Rational(1_000_000))
        let decoder = try Self.decoder(file)
        var skipped = 0
        // Every tick time of a 30 fps cadence over the clip, and times between pictures.
        for k in 1..<Int64(all.count) {
            for target in [Rational(k, 30), Rational(2 * k + 1, 60)] where target < all.last! {
                let before = decoder.discardablePackets
                #expect(decoder.seek(toSeconds: target))
                let seen = try Self.times(decoder, until: target)
                let onScreen = all.last { $0 <= target }!
                #expect(seen.contains(onScreen), "\(file): --at \(target.seconds) s lost the picture at \(onScreen.seconds) s")
                // Skipped pictures are before the one on screen and after the key frame landed on.
                let decodedBefore = seen.filter { $0 < onScreen }.count
                let existBefore = all.filter { $0 >= seen.first! && $0 < onScreen }.count
                #expect(decodedBefore <= existBefore)
                skipped += existBefore - decodedBefore
                #expect(decoder.discardablePackets >= before)
            }
        }
        // The B-pictures of these clips are not referenced: many are skipped.
        #expect(skipped > all.count / 4, "\(file): only \(skipped) pictures skipped")
    }
}
