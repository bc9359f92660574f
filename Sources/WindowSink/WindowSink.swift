import CSDL2
public import FrameCore
public import Sinks

/// A resizable SDL2 window (the library ffplay uses) showing frames aspect-fit on
/// black. BGRA frames go straight into an ARGB8888 texture (the same bytes on a
/// little-endian machine), so colours are exactly the frame's. Create, drive and close
/// it on the main thread, as SDL requires.
///
/// A minimized or hidden window reports ``isVisible`` false, so playback keeps its
/// clock but stops spending time on effects, as a player does in the background.
public final class WindowSink: PreviewSink {
    public let name = "window"
    public private(set) var isVisible = true

    private var window: OpaquePointer?
    private var renderer: OpaquePointer?
    private var texture: OpaquePointer?
    private var textureSize = (0, 0)
    private var closed = false
    private var pending: [PreviewControl] = []
    private var shownByEvents = true
    /// When true, every shown frame is read back from the renderer into ``lastShown``
    /// (for tests: what the window really displays).
    public var capturesShownFrames = false
    /// The window's pixels after the last ``show(_:caption:)`` when capturing.
    public private(set) var lastShown: Frame?

    /// Opens the window.
    /// - Parameters:
    ///   - title: the window title.
    ///   - size: initial inner size; the user may resize it.
    /// - Throws: ``SinkError`` when SDL cannot open a display.
    public init(title: String, size: (width: Int, height: Int)) throws(SinkError) {
        let noDisplay = SinkError(path: "window", reason: "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set); try --sink terminal or --sink y4m")
        if getenv("DISPLAY") == nil && getenv("WAYLAND_DISPLAY") == nil && getenv("SDL_VIDEODRIVER") == nil {
            throw noDisplay  // before SDL_Init, which would print its own complaints while probing
        }
        // SDL2 is loaded with the first window, not at start.
        if let failure = vfx_load_sdl() {
            throw SinkError(path: "window", reason: "\(String(cString: failure)); try --sink terminal")
        }
        guard SDL_Init(SDL_INIT_VIDEO) == 0 else {
            throw SinkError(path: "window", reason: "cannot open a window (\(String(cString: SDL_GetError()))); try --sink terminal")
        }
        // With no display SDL falls back to a driver that shows nothing: playback would
        // run and report frames "shown" to nobody. Only a driver asked for by name
        // (SDL_VIDEODRIVER=dummy, as tests do) may be invisible.
        let driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? ""
        if ["dummy", "offscreen", "evdev"].contains(driver) && getenv("SDL_VIDEODRIVER") == nil {
            SDL_Quit()
            throw noDisplay
        }
        _ = SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "linear")
        let flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_SHOWN.rawValue
        window = SDL_CreateWindow(title, VFX_SDL_WINDOWPOS_CENTERED, VFX_SDL_WINDOWPOS_CENTERED,
                                  Int32(max(1, size.width)), Int32(max(1, size.height)), flags)
        guard let window else {
            let why = String(cString: SDL_GetError())
            SDL_Quit()
            throw SinkError(path: "window", reason: "cannot create the window (\(why))")
        }
        // Accelerated if there is a GPU, software otherwise (Xvfb, the dummy driver).
        renderer = SDL_CreateRenderer(window, -1, 0) ?? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue)
        guard renderer != nil else {
            let why = String(cString: SDL_GetError())
            SDL_DestroyWindow(window)
            SDL_Quit()
            throw SinkError(path: "window", reason: "cannot draw in the window (\(why))")
        }
    }

    deinit { close() }

    public func show(_ frame: Frame, caption: String?) throws(SinkError) -> Bool {
        guard !closed, let renderer else { return false }
        if textureSize != (frame.width, frame.height) {
            if let texture { SDL_DestroyTexture(texture) }
            texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ARGB8888.rawValue, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                        Int32(frame.width), Int32(frame.height))
            guard texture != nil else { throw SinkError(path: "window", reason: "cannot create a texture (\(String(cString: SDL_GetError())))") }
            textureSize = (frame.width, frame.height)
        }
        // Copy into the texture and burn the caption in there: the frame stays untouched.
        var pixels: UnsafeMutableRawPointer?
        var pitch: Int32 = 0
        guard SDL_LockTexture(texture, nil, &pixels, &pitch) == 0, let pixels else {
            throw SinkError(path: "window", reason: "cannot update the texture (\(String(cString: SDL_GetError())))")
        }
        let rowBytes = frame.width * 4
        frame.withUnsafeBytes { b in
            for y in 0..<frame.height {
                (pixels + y * Int(pitch)).copyMemory(from: b.baseAddress! + y * frame.bytesPerRow, byteCount: rowBytes)
            }
        }
        if let caption {
            let scale = max(1, min(4, frame.height / 240))
            Caption.draw(caption, into: pixels.assumingMemoryBound(to: UInt32.self), stride: Int(pitch) / 4,
                         width: frame.width, height: frame.height, x: 2 * scale, y: 2 * scale, scale: scale, background: 0xC000_0000)
        }
        SDL_UnlockTexture(texture)

        var outW: Int32 = 0, outH: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &outW, &outH)
        let fit = FrameScaler.fit(width: frame.width, height: frame.height, into: (Int(outW), Int(outH)))
        var target = SDL_Rect(x: (outW - Int32(fit.width)) / 2, y: (outH - Int32(fit.height)) / 2, w: Int32(fit.width), h: Int32(fit.height))
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        SDL_RenderCopy(renderer, texture, nil, &target)
        if capturesShownFrames { lastShown = readBack(width: Int(outW), height: Int(outH)) }
        SDL_RenderPresent(renderer)
        return true
    }

    public func pollControls() -> [PreviewControl] {
        guard !closed else { return [] }
        var event = SDL_Event()
        while SDL_PollEvent(&event) != 0 {
            switch event.type {
            case SDL_QUIT.rawValue:
                pending.append(.quit)
            case SDL_KEYDOWN.rawValue:
                switch Int(event.key.keysym.sym) {
                case Int(SDLK_q.rawValue), Int(SDLK_ESCAPE.rawValue): pending.append(.quit)
                case Int(SDLK_SPACE.rawValue): pending.append(.togglePause)
                case Int(SDLK_LEFT.rawValue): pending.append(.previousEffect)
                case Int(SDLK_RIGHT.rawValue): pending.append(.nextEffect)
                case Int(SDLK_UP.rawValue): pending.append(.increase)
                case Int(SDLK_DOWN.rawValue): pending.append(.decrease)
                case Int(SDLK_l.rawValue): pending.append(.toggleLoop)
                default: break
                }
            case SDL_WINDOWEVENT.rawValue:
                // What the window manager says happened to the window.
                switch UInt32(event.window.event) {
                case SDL_WINDOWEVENT_MINIMIZED.rawValue, SDL_WINDOWEVENT_HIDDEN.rawValue: shownByEvents = false
                case SDL_WINDOWEVENT_RESTORED.rawValue, SDL_WINDOWEVENT_SHOWN.rawValue, SDL_WINDOWEVENT_EXPOSED.rawValue,
                     SDL_WINDOWEVENT_MAXIMIZED.rawValue: shownByEvents = true
                default: break
                }
            default:
                break
            }
        }
        if let window {
            let flags = SDL_GetWindowFlags(window)
            isVisible = shownByEvents && flags & (SDL_WINDOW_MINIMIZED.rawValue | SDL_WINDOW_HIDDEN.rawValue) == 0
        }
        defer { pending.removeAll() }
        return pending
    }

    public func close() {
        guard !closed else { return }
        closed = true
        if let texture { SDL_DestroyTexture(texture) }
        if let renderer { SDL_DestroyRenderer(renderer) }
        if let window { SDL_DestroyWindow(window) }
        texture = nil
        renderer = nil
        window = nil
        SDL_Quit()
    }

    private func readBack(width: Int, height: Int) -> Frame? {
        var shot = Frame(width: width, height: height)
        let stride = shot.bytesPerRow
        let ok = shot.withUnsafeMutableBytes { b in
            SDL_RenderReadPixels(renderer, nil, SDL_PIXELFORMAT_ARGB8888.rawValue, b.baseAddress, Int32(stride)) == 0
        }
        return ok ? shot : nil
    }
}
