// swift-tools-version: 6.1
import PackageDescription

/// Strictness shared by every Swift target.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// `VIDFX_TARGET_CPU=native swift build -c release` tunes the pixel loops for the build
/// machine (AVX2/AVX-512 instead of baseline SSE2). The binary then runs only on CPUs
/// like it; unset (the default) builds portable code.
/// A tuned build also defines VIDFX_TUNED: the pixel loops may then use instructions
/// baseline x86-64 lacks (SSE4.1's roundps for floor), where portable code needs tricks.
let tuning: [SwiftSetting] = Context.environment["VIDFX_TARGET_CPU"].flatMap {
    $0.isEmpty ? nil : [.unsafeFlags(["-target-cpu", $0]), .define("VIDFX_TUNED")]
} ?? []

/// `VIDFX_DEVELOP=1` (the Makefile sets it) builds the C pixel kernels at -O2 in debug
/// builds too: the test suite runs a debug build, where -O0 kernels are several times
/// slower. Both settings are opt-in through the environment because SwiftPM refuses
/// unsafe flags in any package it resolves by version: a dependent's build never sees
/// them and gets SwiftPM's own optimisation levels (the same bytes: the kernels turn
/// off multiply-add contraction, so no level changes a result).
let kernelOptimisation: [CSetting] = Context.environment["VIDFX_DEVELOP"].flatMap {
    $0.isEmpty || $0 == "0" ? nil : [.unsafeFlags(["-O2"])]
} ?? []

/// `VIDFX_DEVELOP=1` also builds the Swift targets whose loops touch every pixel at -O in
/// debug builds: the test suite's renders, detections and scans (its CLI tests run the debug
/// vidfx under AddressSanitizer) spent most of their time in -Onone code. Opt-in for the
/// same reason as above.
let loopOptimisation: [SwiftSetting] = Context.environment["VIDFX_DEVELOP"].flatMap {
    $0.isEmpty || $0 == "0" ? nil : [.unsafeFlags(["-O"], .when(configuration: .debug))]
} ?? []

let package = Package(
    name: "vidfx",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FrameCore", targets: ["FrameCore"]),
        .library(name: "MediaInput", targets: ["MediaInput"]),
        .library(name: "FrameSource", targets: ["FrameSource"]),
        .library(name: "Effects", targets: ["Effects"]),
        .library(name: "Sinks", targets: ["Sinks"]),
        .library(name: "Detection", targets: ["Detection"]),
        .library(name: "Scenes", targets: ["Scenes"]),
        .library(name: "Render", targets: ["Render"]),
        // The face network (OpenCV dnn behind a C API), loaded by Detection at run time
        // rather than linked: see FaceNetLibrary.
        .library(name: "VidfxFaceNet", type: .dynamic, targets: ["CFaceNet"]),
        .executable(name: "vidfx", targets: ["vidfx"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `make docs`: the libraries' API as a static site (a command plugin; no target uses it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The studio's web server and its live preview's WebSocket.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // The studio's own thread pool for file reads (the same swift-nio Hummingbird uses).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        // Its graceful shutdown, in the order the studio stops its parts.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        // FFmpeg's C libraries. The modulemap's `link` lines do the linking (Debian's
        // libavformat.pc lists only -lavformat); libavfilter and libavdevice are loaded on
        // demand by CFFmpegShim instead (COnDemand).
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev", "libswresample-dev",
                              "libavfilter-dev", "libavdevice-dev"])]
        ),
        // What is better written in C: receiving av_log's va_list, custom AVIO readers
        // (standard input's spool, the shared download), timestamp mending, renameat2.
        // Shared libraries loaded when a job first needs them, not at start (libavfilter,
        // libavdevice, SDL2, zbar): each pulls in many more, which cost every run memory.
        .target(name: "COnDemand"),
        .target(name: "CFFmpegShim", dependencies: ["CFFmpeg", "COnDemand"]),
        // BGRA frames, exact time values and the buffer pool; no FFmpeg.
        .target(name: "FrameCore", swiftSettings: strict + loopOptimisation),
        // One input opened once, for every reader of it (video and audio).
        .target(name: "MediaInput", dependencies: ["FrameCore", "CFFmpeg", "CFFmpegShim"], swiftSettings: strict),
        // Pixel loops written in C, each compiled for baseline x86-64 and for AVX2 and picked
        // at run time, so a dependent's portable build runs them as fast as a tuned one: the
        // colour kernels, BGRA → 4:2:0, the HDR table lookup, the field measure.
        .target(name: "CPixelKernels", cSettings: kernelOptimisation),
        .target(name: "FrameSource", dependencies: ["FrameCore", "MediaInput", "CFFmpeg", "CFFmpegShim", "CPixelKernels"], swiftSettings: strict + loopOptimisation),
        // The text stack (FreeType, HarfBuzz, fontconfig, FriBidi) behind a small C API, loaded when a
        // text is first drawn. CFreeType, a system library, names the apt packages; its folder
        // links FreeType's headers and is CTextStack's header search path (as COpenCV below).
        .systemLibrary(name: "CFreeType", providers: [.apt(["libfreetype-dev", "libharfbuzz-dev", "libfontconfig-dev", "libfribidi-dev", "fonts-dejavu-core"])]),
        .target(name: "CTextStack", dependencies: ["COnDemand", "CFreeType"], cSettings: [.headerSearchPath("../CFreeType")]),
        // Users' shaders as Vulkan compute: libshaderc and the Vulkan loader are loaded on
        // demand (COnDemand); only their headers (libshaderc-dev, libvulkan-dev) are needed
        // to build.
        .target(name: "CShader", dependencies: ["COnDemand"]),
        .target(name: "Shaders", dependencies: ["CShader", "Effects", "FrameCore"], swiftSettings: strict),
        // The software shader engine and the effects; knows nothing of FFmpeg.
        .target(name: "Effects", dependencies: ["FrameCore", "CPixelKernels", "CTextStack"], swiftSettings: strict + tuning + loopOptimisation),
        // zlib, for PNG frames streamed straight to their files.
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        // Where frames go (one FrameSink protocol): the encoder with the input's audio,
        // raw streams, image sequences, and the preview sinks.
        .target(name: "Sinks", dependencies: ["FrameCore", "MediaInput", "CFFmpeg", "CFFmpegShim", "CZlib", "CPixelKernels"], swiftSettings: strict + tuning + loopOptimisation),
        // zbar's C API (QR codes and barcodes), loaded on demand.
        .target(name: "CZbar", dependencies: ["COnDemand"]),
        // OpenCV's dnn module (C++) behind a small C API: the face network. COpenCV, a system
        // library, names the apt package; its folder holds `opencv2`, a link to
        // Debian's /usr/include/opencv4/opencv2, and is CFaceNet's header search path (a
        // safe setting, unlike -I). Not pkg-config: Debian ships opencv4.pc only in
        // libopencv-dev, which installs 122 packages (Qt, GDAL, VTK, MPI), and its Libs
        // would link every OpenCV module.
        .systemLibrary(name: "COpenCV", providers: [.apt(["libopencv-dnn-dev"])]),
        .target(
            name: "CFaceNet",
            dependencies: ["COpenCV"],
            cxxSettings: [.headerSearchPath("../COpenCV")],
            linkerSettings: [.linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_core")]
        ),
        // What is in a frame (codes, faces) behind one Detector protocol, with tracking
        // and the timeline that runs detectors every Nth tick on a worker pool.
        .target(name: "Detection", dependencies: ["FrameCore", "CZbar"], swiftSettings: strict + loopOptimisation),
        // What changes between pictures: scene cuts (PySceneDetect's detectors), on the
        // small pictures FrameSource's PictureScanner reads; no FFmpeg.
        .target(name: "Scenes", dependencies: ["FrameCore", "CPixelKernels"], swiftSettings: strict + loopOptimisation),
        // Offline rendering (Renderer, Player's twin): a supply of frames through detection,
        // the chain and one sink; the detection stage, its log and the redaction report;
        // representative frames. What apply, dump, detect and the studio's stills share.
        .target(name: "Render", dependencies: ["FrameSource", "MediaInput", "Effects", "Sinks", "Detection", "Scenes", "FrameCore"],
                swiftSettings: strict),
        // The preview window: SDL2 (what ffplay uses), kept out of the Sinks library so
        // that users of Sinks need no libsdl2-dev.
        // SDL2, loaded on demand. Its headers only (no pkgConfig: SDL2's cflags carry
        // -D_REENTRANT, which SwiftPM refuses).
        .target(name: "CSDL2", dependencies: ["COnDemand"]),
        .target(name: "WindowSink", dependencies: ["CSDL2", "Sinks", "FrameCore"], swiftSettings: strict),
        // Real-time playback of a source through effects to preview sinks.
        .target(name: "Playback", dependencies: ["FrameSource", "Effects", "Sinks", "FrameCore"], swiftSettings: strict),
        // `vidfx studio`: a web page that previews and steers the same Player, EffectChain
        // and sinks (a control surface, not a second pipeline); its page is inside the binary.
        .target(
            name: "Studio",
            dependencies: [
                "Playback", "Render", "FrameSource", "MediaInput", "Effects", "Sinks", "FrameCore", "Detection", "Scenes",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            // The page, its script and style sheet, compiled into the binary as bytes
            // (`PackageResources`): nothing to install beside it, no bundle to find.
            resources: [.embedInCode("Assets/index.html"), .embedInCode("Assets/studio.js"), .embedInCode("Assets/studio.css")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "vidfx",
            dependencies: [
                "MediaInput", "FrameSource", "Effects", "Sinks", "FrameCore", "Playback", "WindowSink", "Detection", "Studio", "Scenes", "Render",
                "Shaders",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        // Benchmark driver (bench/effects.py runs it beside ffmpeg); not a test.
        .executableTarget(name: "effects-bench", dependencies: ["Effects", "FrameCore"], path: "Benchmarks/EffectsBench", swiftSettings: strict),
        // Process running shared by the test targets.
        .target(name: "TestSupport", path: "Tests/Support", exclude: ["media_server.py", "browser_seams.py", "cdp.py", "face_oracle.py", "scene_oracle.py"], swiftSettings: strict),
        .testTarget(name: "TestSupportTests", dependencies: ["TestSupport"], swiftSettings: strict),
        .testTarget(name: "FrameCoreTests", dependencies: ["FrameCore"], swiftSettings: strict),
        .testTarget(name: "ShadersTests", dependencies: ["Shaders", "Effects", "FrameSource", "FrameCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "EffectsTests", dependencies: ["Effects", "FrameCore", "FrameSource", "CPixelKernels", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "PlaybackTests", dependencies: ["Playback", "WindowSink", "CSDL2", "Sinks", "Effects", "FrameSource", "FrameCore", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "SinksTests", dependencies: ["Sinks", "MediaInput", "FrameCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "RenderTests", dependencies: ["Render", "Effects", "Sinks", "FrameCore", "FrameSource", "MediaInput", "Detection", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ScenesTests", dependencies: ["Scenes", "FrameCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "DetectionTests", dependencies: ["Detection", "FrameSource", "FrameCore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "FrameSourceTests", dependencies: ["FrameSource", "MediaInput", "FrameCore", "CFFmpeg", "CPixelKernels", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "VidfxCLITests", dependencies: ["vidfx", "Studio", "Shaders", "FrameSource", "MediaInput", "Effects", "FrameCore", "TestSupport",
                                                     .product(name: "HummingbirdTesting", package: "hummingbird"),
                                                     .product(name: "NIOCore", package: "swift-nio"),
                                                     .product(name: "NIOPosix", package: "swift-nio"),
                                                     .product(name: "_NIOFileSystem", package: "swift-nio")], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
