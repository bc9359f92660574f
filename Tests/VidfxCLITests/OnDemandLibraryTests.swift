import Foundation
import Testing

/// libavfilter, libavdevice, zimg, SDL2 and zbar are loaded when a job needs them, not at
/// start (most pull in many more libraries, which cost every run memory): the dynamic
/// loader's own account (LD_DEBUG=files) says which files a run opened.
@Suite struct OnDemandLibraryTests {
    static let onDemand = ["libavfilter.so", "libavdevice.so", "libzimg.so", "libSDL2", "libzbar.so"]

    /// The run's outcome with the loader's list of the files it opened, one soname each.
    static func loaded(_ arguments: [String], libraryPath: String? = nil) async throws -> (result: CLI.Result, files: [String]) {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        if let libraryPath { environment["LD_LIBRARY_PATH"] = libraryPath }
        let r = try await CLI.run(arguments, environment: environment)
        // "  PID:	file=libavfilter.so.8 [0];  dynamically loaded by …"
        let files = r.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "file=") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != " " && $0 != ";" })
        }
        return (r, files)
    }

    @Test func aPlainDecodeLoadsNoneOfThem() async throws {
        let (r, files) = try await Self.loaded(["dump", CLI.media("h264-30fps.mp4"), "--format", "bgra", "-o", "/dev/null", "-q", "--frames", "5"])
        #expect(r.status == 0, "\(r.stderr.suffix(2000))")
        #expect(files.contains { $0.hasPrefix("libavcodec.so") }, "the loader's list was read")
        for name in Self.onDemand {
            #expect(!files.contains { $0.hasPrefix(name) }, "\(name) loaded for a plain decode")
        }
    }

    /// HDR's table is filled with zimg alone (one library, where libavfilter brings some
    /// eighty); the reference engine runs libavfilter's chain.
    @Test func hdrLoadsZimgOrTheFilterLibraryAndCodesZbar() async throws {
        let hdr = try await Self.loaded(["dump", CLI.media("hlg-10bit.mkv"), "--format", "bgra", "-o", "/dev/null", "-q", "--frames", "2"])
        #expect(hdr.result.status == 0, "\(hdr.result.stderr.suffix(2000))")
        #expect(hdr.files.contains { $0.hasPrefix("libzimg.so") })
        #expect(!hdr.files.contains { $0.hasPrefix("libavfilter.so") || $0.hasPrefix("libavdevice.so") || $0.hasPrefix("libSDL2") || $0.hasPrefix("libzbar.so") })
        let reference = try await Self.loaded(["dump", CLI.media("hlg-10bit.mkv"), "--tonemap-engine", "libavfilter", "--format", "bgra",
                                               "-o", "/dev/null", "-q", "--frames", "2"])
        #expect(reference.result.status == 0, "\(reference.result.stderr.suffix(2000))")
        #expect(reference.files.contains { $0.hasPrefix("libavfilter.so") })
        let codes = try await Self.loaded(["detect", CLI.media("ean13-moving.mp4"), "--what", "codes", "--duration", "0.5"])
        #expect(codes.result.status == 0, "\(codes.result.stderr.suffix(2000))")
        #expect(codes.result.stdout.count > 0)
        #expect(codes.files.contains { $0.hasPrefix("libzbar.so") })
        #expect(!codes.files.contains { $0.hasPrefix("libavfilter.so") || $0.hasPrefix("libSDL2") })
    }

    /// A library that cannot be loaded is one line naming the input and the file, and a
    /// failed run; the rest of vidfx still works without it. zimg for the table engine,
    /// libavfilter for the reference.
    @Test(arguments: [("libzimg.so", "table"), ("libavfilter.so", "libavfilter")])
    func aBrokenLibraryIsOneClearLine(library: String, engine: String) async throws {
        let hdr = ["dump", CLI.media("hlg-10bit.mkv"), "--tonemap-engine", engine, "--format", "bgra", "-o", "/dev/null", "-q", "--frames", "1"]
        let probe = try await Self.loaded(hdr)
        let soname = try #require(probe.files.first { $0.hasPrefix(library) })
        let dir = Scratch()
        // Not an ELF file: dlopen refuses it ("file too short").
        _ = FileManager.default.createFile(atPath: dir.path(soname), contents: Data())
        let broken = try await Self.loaded(hdr, libraryPath: dir.path(""))
        #expect(broken.result.status != 0)
        let message = broken.result.stderr.split(separator: "\n").filter { !$0.contains("file=") && !$0.contains(":\t") && !$0.isEmpty }
        #expect(message.count == 1, "\(message)")
        #expect(message.first?.contains("hlg-10bit.mkv") == true && message.first?.contains("cannot load \(soname)") == true, "\(message)")
        let plain = try await Self.loaded(["dump", CLI.media("h264-30fps.mp4"), "--format", "bgra", "-o", "/dev/null", "-q", "--frames", "2"],
                                          libraryPath: dir.path(""))
        #expect(plain.result.status == 0, "\(plain.result.stderr.suffix(2000))")
    }
}
