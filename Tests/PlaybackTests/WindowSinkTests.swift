import CSDL2
import Foundation
import FrameCore
import Sinks
import Testing
import WindowSink

/// The SDL window under the dummy video driver (software renderer, read back).
@Suite(.serialized, .timeLimit(.minutes(5))) @MainActor struct WindowSinkRealClockTests {
    init() { setenv("SDL_VIDEODRIVER", "dummy", 1) }

    static func pattern(width: Int, height: Int) -> Frame {
        var frame = Frame(width: width, height: height)
        let stride = frame.bytesPerRow / 4
        frame.withUnsafeMutableBytes { b in
            let p = b.baseAddress!.assumingMemoryBound(to: UInt32.self)
            for y in 0..<height {
                for x in 0..<width {
                    // Distinct red, green and blue in every pixel: a swapped channel shows.
                    p[y * stride + x] = 0xFF00_0000 | UInt32(x * 255 / width) << 16 | UInt32(y * 255 / height) << 8 | UInt32((x + y) % 256)
                }
            }
        }
        return frame
    }

    @Test func showsTheFramesExactPixels() throws {
        let sink = try WindowSink(title: "test", size: (64, 48))
        defer { sink.close() }
        sink.capturesShownFrames = true
        let frame = Self.pattern(width: 64, height: 48)
        #expect(try sink.show(frame, caption: nil))
        let shot = try #require(sink.lastShown)
        #expect(shot.width == 64 && shot.height == 48)
        #expect(shot.packedBytes() == frame.packedBytes(), "BGRA through an ARGB8888 texture keeps every byte")
    }

    @Test func aspectFitLetterboxesOnBlack() throws {
        let sink = try WindowSink(title: "test", size: (128, 48))
        defer { sink.close() }
        sink.capturesShownFrames = true
        let frame = Self.pattern(width: 64, height: 48)
        _ = try sink.show(frame, caption: nil)
        let shot = try #require(sink.lastShown)
        #expect(shot.width == 128)
        for y in stride(from: 0, to: 48, by: 7) {
            #expect(shot.pixel(x: 5, y: y) == (0, 0, 0, 255), "left bar")
            #expect(shot.pixel(x: 122, y: y) == (0, 0, 0, 255), "right bar")
            for x in stride(from: 0, to: 64, by: 9) {
                let a = shot.pixel(x: 32 + x, y: y), b = frame.pixel(x: x, y: y)
                #expect(a == b, "picture centred at 32…95, unscaled")
            }
        }
    }

    @Test func captionIsDrawnOnTheWindowNotTheFrame() throws {
        let sink = try WindowSink(title: "test", size: (240, 120))
        defer { sink.close() }
        sink.capturesShownFrames = true
        let frame = Self.pattern(width: 240, height: 120)
        let before = frame.packedBytes()
        _ = try sink.show(frame, caption: "SEPIA AMOUNT=0.5")
        let shot = try #require(sink.lastShown)
        #expect(frame.packedBytes() == before, "the frame itself is untouched")
        var white = 0
        for y in 0..<12 { for x in 0..<120 where shot.pixel(x: x, y: y) == (255, 255, 255, 255) { white += 1 } }
        #expect(white > 40, "caption text in the top-left corner")
    }

    @Test func readsKeysAsControls() throws {
        let sink = try WindowSink(title: "test", size: (32, 32))
        defer { sink.close() }
        #expect(sink.pollControls().isEmpty)
        let keys: [(Int32, PreviewControl)] = [
            (Int32(SDLK_SPACE.rawValue), .togglePause), (Int32(SDLK_RIGHT.rawValue), .nextEffect), (Int32(SDLK_LEFT.rawValue), .previousEffect),
            (Int32(SDLK_UP.rawValue), .increase), (Int32(SDLK_DOWN.rawValue), .decrease), (Int32(SDLK_l.rawValue), .toggleLoop),
            (Int32(SDLK_q.rawValue), .quit), (Int32(SDLK_ESCAPE.rawValue), .quit),
        ]
        for (key, _) in keys {
            var event = SDL_Event()
            event.type = SDL_KEYDOWN.rawValue
            event.key.keysym.sym = key
            #expect(SDL_PushEvent(&event) == 1)
        }
        #expect(sink.pollControls() == keys.map(\.1))
        var quit = SDL_Event()
        quit.type = SDL_QUIT.rawValue
        SDL_PushEvent(&quit)
        #expect(sink.pollControls() == [.quit], "closing the window quits")
    }

    @Test func minimizedWindowIsNotVisible() throws {
        let sink = try WindowSink(title: "test", size: (32, 32))
        defer { sink.close() }
        _ = sink.pollControls()
        #expect(sink.isVisible)
        // What a window manager sends when the user minimizes, then restores, the window.
        for (what, visible) in [(SDL_WINDOWEVENT_MINIMIZED, false), (SDL_WINDOWEVENT_RESTORED, true),
                                (SDL_WINDOWEVENT_HIDDEN, false), (SDL_WINDOWEVENT_SHOWN, true)] {
            var event = SDL_Event()
            event.type = SDL_WINDOWEVENT.rawValue
            event.window.event = UInt8(what.rawValue)
            SDL_PushEvent(&event)
            _ = sink.pollControls()
            #expect(sink.isVisible == visible, "after \(what)")
        }
    }
}
