import Effects
import Foundation
import FrameCore
import FrameSource
import Testing

/// The oracles again, on a real decoded video frame instead of random pixels.
@Suite struct DecodedFrameOracleTests {
    static let frame: Frame = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("testmedia/h264-30fps.mp4").path
        var configuration = FrameSource.Configuration()
        configuration.start = Rational(3, 2)
        let source = try! FrameSource(path, configuration: configuration)
        defer { source.close() }
        return try! source.nextFrame()!
    }()

    static let cases: [(String, String, Int)] = [
        ("sepia", "colorchannelmixer=rr=.393:rg=.769:rb=.189:gr=.349:gg=.686:gb=.168:br=.272:bg=.534:bb=.131", 1),
        ("posterize=6", "lutrgb=r='floor(floor(val/255*5+0.5)*255/5+0.5)':g='floor(floor(val/255*5+0.5)*255/5+0.5)':b='floor(floor(val/255*5+0.5)*255/5+0.5)'", 0),
        ("threshold", geq3("255*gte(0.2126*r(X,Y)+0.7152*g(X,Y)+0.0722*b(X,Y),127.5)"), 0),
        ("pixelate:size=8:mode=average", "pixelize=w=8:h=8", 0),
        ("caleido", geq3("ch(if(lt(X,W/2),X,W-1-X),if(lt(Y,H/2),Y,H-1-Y))"), 0),
        ("tiled=3", geq3("ch(floor(mod((X+0.5)*3,W)),floor(mod((Y+0.5)*3,H)))"), 0),
    ]

    @Test(arguments: cases)
    func matchesFFmpeg(chain: String, filter: String, tolerance: Int) async throws {
        let frame = DecodedFrameOracleTests.frame
        let ours = try Fixture.apply(chain, to: frame)
        let theirs = try await Fixture.ffmpeg(frame, filter: filter)
        #expect(Fixture.difference(ours, theirs) <= tolerance)
    }
}
