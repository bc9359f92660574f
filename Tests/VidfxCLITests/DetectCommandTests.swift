import Foundation
import TestSupport
import Testing

/// `vidfx detect`: one JSON object per tick, the summary on stderr, clear refusals.
@Suite struct DetectCommandTests {
    static let url = "https://vidfx.example/menu?table=12"

    func lines(_ data: Data) throws -> [[String: Any]] {
        try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func jsonLinesHaveOneObjectPerTickWithTheCodeAndItsTrack() async throws {
        let r = try await CLI.run(["detect", CLI.media("qr-moving.mp4"), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let ticks = try lines(r.stdout)
        #expect(ticks.count == 60)
        #expect(ticks.enumerated().allSatisfy { ($0.element["tick"] as? Int) == $0.offset })
        let codes = ticks.compactMap { ($0["detections"] as? [[String: Any]])?.first }
        #expect(codes.count >= 57)
        #expect(codes.allSatisfy { $0["payload"] as? String == Self.url && $0["kind"] as? String == "qr" })
        #expect(Set(codes.compactMap { $0["trackID"] as? Int }) == [1], "one code in view: one track")
        #expect(codes.allSatisfy { ($0["corners"] as? [[String: Double]])?.count == 4 })
        #expect(r.stderr.contains("60 ticks") && r.stderr.contains("qr") && r.stderr.contains("1 track"), "\(r.stderr)")
    }

    @Test func detectingEveryFifthTickCarriesTheBoxesBetween() async throws {
        let r = try await CLI.run(["detect", CLI.media("qr-moving.mp4"), "--json", "--detect-every", "5", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let ticks = try lines(r.stdout)
        #expect(ticks.count == 60)
        let detections = ticks.compactMap { ($0["detections"] as? [[String: Any]])?.first }
        #expect(detections.count == 60, "every tick has the code")
        let measured = detections.filter { $0["interpolated"] as? Bool == false }.count
        #expect(measured == 13, "ticks 0, 5, … 55 and the last")
        #expect(r.stderr.isEmpty)
    }

    @Test func aTableByDefaultAndStandardInputToo() async throws {
        let r = try await CLIProcess.shell("cat testmedia/ean13-moving.mp4 | \"$0\" detect - --what barcodes --duration 0.5", [])
        #expect(r.status == 0, "\(r.stderr)")
        let text = String(decoding: r.stdout, as: UTF8.self)
        #expect(text.hasPrefix("tick"))
        #expect(text.split(separator: "\n").filter { $0.contains("ean13") && $0.contains("4006381333931") }.count == 15)
    }

    /// The table shows a face's score and box, the same as the JSON's; --verbose adds its
    /// landmarks; a photo gets its time, not a real-time figure.
    @Test func aFaceTableHasTheBoxAndScore() async throws {
        let json = try await CLI.run(["detect", CLI.media("crowd.jpg"), "--what", "faces", "--json", "-q"])
        let faces = (try lines(json.stdout).first?["detections"] as? [[String: Any]]) ?? []
        #expect(faces.count >= 17)
        let table = try await CLI.run(["detect", CLI.media("crowd.jpg"), "--what", "faces", "--verbose"])
        #expect(table.status == 0, "\(table.stderr)")
        let rows = String(decoding: table.stdout, as: UTF8.self).split(separator: "\n").dropFirst()
        #expect(rows.count == faces.count)
        for (row, face) in zip(rows, faces) {
            let b = try #require(face["bounds"] as? [String: Double]), score = try #require(face["confidence"] as? Double)
            let found = try #require(row.firstMatch(of: #/score ([0-9.]+) +(-?[0-9]+),(-?[0-9]+) ([0-9]+)x([0-9]+) /#), "\(row)")
            // The JSON rounds to 0.1 px, the table to 1 px.
            let shown = [found.2, found.3, found.4, found.5].map { Double($0)! }
            let json = [b["x"]!, b["y"]!, b["width"]!, b["height"]!]
            #expect(zip(shown, json).allSatisfy { abs($0 - $1) <= 0.6 }, "\(row) against \(json)")
            #expect(abs(Double(found.1)! - score) < 0.0015, "\(row) against \(score)")
            #expect(row.contains("leftEye") && row.contains("mouthRight"), "\(row)")
        }
        #expect(table.stderr.contains("faces") && !table.stderr.contains("real time") && table.stderr.hasSuffix(" s\n"), "\(table.stderr)")
        let plain = try await CLI.run(["detect", CLI.media("crowd.jpg"), "--what", "faces", "-q"])
        #expect(!String(decoding: plain.stdout, as: UTF8.self).contains("leftEye"))
    }

    @Test func nothingFoundIsNotAnError() async throws {
        let r = try await CLI.run(["detect", CLI.media("no-codes.mp4"), "--json"])
        #expect(r.status == 0)
        #expect(try lines(r.stdout).allSatisfy { ($0["detections"] as? [Any])?.isEmpty == true })
        #expect(r.stderr.contains("nothing found"))
    }

    @Test func facesInACrowdAreFoundAndCounted() async throws {
        let r = try await CLI.run(["detect", CLI.media("crowd.mp4"), "--what", "faces", "--json", "--duration", "0.5"])
        #expect(r.status == 0, "\(r.stderr)")
        let ticks = try lines(r.stdout)
        #expect(ticks.count == 15)
        for tick in ticks {
            let faces = (tick["detections"] as? [[String: Any]]) ?? []
            #expect(faces.count >= 17 && faces.allSatisfy { $0["kind"] as? String == "face" && $0["landmarks"] != nil })
        }
        #expect(r.stderr.contains("15 ticks") && r.stderr.contains("faces"), "\(r.stderr)")
    }

    @Test func applyRedactsFacesKeepingTimingAndAudio() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-faceblur-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4").path, log = dir.appendingPathComponent("faces.jsonl").path
        // A clip with audio: the render keeps all of it, in sync.
        let r = try await CLI.run(["apply", CLI.media("h264-30fps.mp4"), "-e", "faceblur", "-o", out, "--detections", log, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try await Probe(out).video["nb_read_frames"] == "90")
        try await CLIProcess.expectInSync(out)
        #expect(try lines(Data(contentsOf: URL(fileURLWithPath: log))).count == 90)
        // The crowd: every tick's faces in the log, and nothing left beside the outputs.
        let crowd = dir.appendingPathComponent("crowd.mp4").path, crowdLog = dir.appendingPathComponent("crowd.jsonl").path
        let c = try await CLI.run(["apply", CLI.media("crowd.mp4"), "-e", "faceblur:mode=pixelate", "-o", crowd, "--detections", crowdLog, "-q"])
        #expect(c.status == 0, "\(c.stderr)")
        let ticks = try lines(Data(contentsOf: URL(fileURLWithPath: crowdLog)))
        #expect(ticks.count == 60 && ticks.allSatisfy { (($0["detections"] as? [Any])?.count ?? 0) >= 17 })
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["crowd.jsonl", "crowd.mp4", "crowd.redaction.json", "faces.jsonl", "out.mp4", "out.redaction.json"])
        // An existing log is not overwritten without -y, and the render does not start.
        let again = try await CLI.run(["apply", CLI.media("crowd.mp4"), "-e", "faceblur", "-o", dir.appendingPathComponent("new.mp4").path, "--detections", crowdLog])
        #expect(again.status != 0 && again.stderr.contains("already exists"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("new.mp4").path))
    }

    @Test(arguments: [
        (["--what", "faces", "--face-model", "/nonexistent.onnx"], "/nonexistent.onnx: no face model here"),
        (["--what", "cats"], "'cats' is not one of qr, barcodes, codes, faces"),
        (["--detect-every", "0"], "--detect-every: must be 1…300"),
    ])
    func refusalsAreOneLine(arguments: [String], message: String) async throws {
        let r = try await CLI.run(["detect", CLI.media("qr-moving.mp4")] + arguments)
        #expect(r.status != 0)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(message), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }
}

/// The face network is loaded at run time: vidfx runs without OpenCV, and faces then
/// fail with one line naming what is missing. A copy of the binary in a folder of its
/// own stands for a machine without the library, or without OpenCV.
@Suite struct FaceNetLibraryTests {
    @Test func aMissingFaceNetworkOrOpenCVIsOneLine() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vidfx-nofacenet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let binary = dir.appendingPathComponent("vidfx")
        try FileManager.default.copyItem(at: CLI.executable, to: binary)
        func run(_ arguments: [String]) async throws -> (status: Int32, stderr: String) {
            // The model is found; only the library is not.
            let r = try await Subprocess.outcome(binary, arguments, in: CLI.directory, environment: ProcessInfo.processInfo.environment.merging(
                ["VIDFX_FACE_MODEL": CLI.directory.appendingPathComponent("models/centerface.onnx").path]) { $1 })
            return (r.status, r.stderrText)
        }
        // Everything but faces works without the library.
        #expect(try await run(["probe", CLI.media("crowd.mp4")]).status == 0)
        #expect(try await run(["detect", CLI.media("qr-binary.png"), "-q"]).status == 0)
        let none = try await run(["detect", CLI.media("crowd.jpg"), "--what", "faces"])
        #expect(none.status == 1 && none.stderr.contains("libVidfxFaceNet.so is not beside vidfx"), "\(none.stderr)")
        #expect(none.stderr.split(separator: "\n").count == 1, "\(none.stderr)")

        // A library that needs a shared library the machine lacks, as the real one needs OpenCV.
        let dep = dir.appendingPathComponent("dep.c"), fake = dir.appendingPathComponent("fake.c")
        try "int vidfx_missing_dependency(void) { return 1; }\n".write(to: dep, atomically: true, encoding: .utf8)
        try "int vidfx_missing_dependency(void);\nint vfx_facenet_threads(int n) { return vidfx_missing_dependency() + n; }\n"
            .write(to: fake, atomically: true, encoding: .utf8)
        func cc(_ a: [String]) async throws {
            let r = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/env"), ["cc"] + a, in: dir)
            #expect(r.status == 0, "cc \(a): \(r.stderrText)")
        }
        try await cc(["-shared", "-fPIC", "-o", "libvidfxmissingdep.so", "dep.c"])
        try await cc(["-shared", "-fPIC", "-o", "libVidfxFaceNet.so", "fake.c", "-L.", "-lvidfxmissingdep"])
        try FileManager.default.removeItem(at: dir.appendingPathComponent("libvidfxmissingdep.so"))
        let missing = try await run(["detect", CLI.media("crowd.jpg"), "--what", "faces"])
        #expect(missing.status == 1 && missing.stderr.contains("cannot load OpenCV's dnn module")
                && missing.stderr.contains("libvidfxmissingdep.so"), "\(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
    }
}

/// An installed vidfx, called by name from another folder, finds its face model and face
/// network library: they are looked for beside the real executable (/proc/self/exe), not
/// beside argv[0], which is only `vidfx` then. The same for a symbolic link on the PATH.
@Suite struct InstalledLocationTests {
    /// `vidfx ARGS` run by name in `folder`, with only `bin` on the PATH and nothing in the
    /// environment pointing at the model or the library.
    static func byName(_ arguments: String, bin: String, in folder: ScratchDirectory) async throws -> Subprocess.Outcome {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin
        environment["VIDFX_FACE_MODEL"] = nil
        environment["VIDFX_FACENET_LIBRARY"] = nil
        return try await Subprocess.outcome(URL(fileURLWithPath: "/bin/sh"), ["-c", "vidfx " + arguments], in: folder.url, environment: environment)
    }

    static func expectFacesWork(bin: String) async throws {
        let elsewhere = try ScratchDirectory("vidfx-elsewhere")
        let photo = CLI.testmedia.appendingPathComponent("crowd.jpg").path
        let detect = try await byName("detect '\(photo)' --what faces --json -q", bin: bin, in: elsewhere)
        #expect(detect.status == 0, "\(detect.stderrText)")
        #expect(String(decoding: detect.stdout, as: UTF8.self).contains("\"face\""), "no face found: \(detect.stderrText)")
        let clip = CLI.testmedia.appendingPathComponent("crowd.mp4").path
        let apply = try await byName("apply '\(clip)' -e faceblur --duration 0.2 -o blurred.mp4 -q", bin: bin, in: elsewhere)
        #expect(apply.status == 0, "\(apply.stderrText)")
        #expect(FileManager.default.fileExists(atPath: elsewhere.path("blurred.mp4")))
    }

    @Test func anInstalledVidfxFindsItsFaceModelFromAnyFolder() async throws {
        let prefix = try ScratchDirectory("vidfx-prefix")
        let install = try await Subprocess.outcome(URL(fileURLWithPath: "/usr/bin/env"),
                                                   ["make", "-s", "install-files", "BIN_DIR=\(CLI.executable.deletingLastPathComponent().path)",
                                                    "PREFIX=\(prefix.url.path)"], in: CLI.directory)
        try #require(install.status == 0, "make install-files: \(install.stderrText)")
        #expect(FileManager.default.fileExists(atPath: prefix.path("share/vidfx/centerface.onnx")))
        try await Self.expectFacesWork(bin: prefix.path("bin"))
    }

    @Test func aLinkOnThePathFindsTheBuildsFaceModel() async throws {
        let bin = try ScratchDirectory("vidfx-linkbin")
        try FileManager.default.createSymbolicLink(atPath: bin.path("vidfx"), withDestinationPath: CLI.executable.path)
        try await Self.expectFacesWork(bin: bin.url.path)
    }
}
