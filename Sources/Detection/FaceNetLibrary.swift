import Foundation

/// The face network's C API (`CFaceNet`, built as `libVidfxFaceNet.so`), loaded when
/// the first face detector is made rather than linked: vidfx then starts, and does
/// everything but faces, on a machine without OpenCV, and a missing OpenCV is one line
/// naming the library instead of the dynamic loader refusing to run vidfx at all.
struct FaceNetLibrary: @unchecked Sendable {
    typealias Open = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int32) -> OpaquePointer?
    typealias Free = @convention(c) (OpaquePointer?) -> Void
    typealias Run = @convention(c) (OpaquePointer?, UnsafePointer<Float>?, Int32, Int32, UnsafeMutablePointer<Float>?, Int32,
                                    UnsafeMutablePointer<CChar>?, Int32) -> Int32
    typealias Threads = @convention(c) (Int32) -> Void

    let open: Open
    let free: Free
    let run: Run
    let threads: Threads

    /// The library's file name.
    static let fileName = "libVidfxFaceNet.so"

    /// Loaded once, on first use; the error says what is missing.
    static let shared: Result<FaceNetLibrary, DetectionError> = load()

    /// Where it is looked for: `$VIDFX_FACENET_LIBRARY`; beside the executable (a build
    /// tree: `.build/debug/`); `PREFIX/lib/vidfx/` for an installed `PREFIX/bin/vidfx`.
    static func candidates() -> [String] {
        var paths: [String] = []
        if let path = ProcessInfo.processInfo.environment["VIDFX_FACENET_LIBRARY"], !path.isEmpty { paths.append(path) }
        let exe = InstalledLocation.binDirectory
        paths.append(exe.appendingPathComponent(fileName).path)
        paths.append(exe.appendingPathComponent("../lib/vidfx/\(fileName)").standardizedFileURL.path)
        return paths
    }

    private static func load() -> Result<FaceNetLibrary, DetectionError> {
        var failure: String?
        for path in candidates() where FileManager.default.fileExists(atPath: path) {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                // Most often OpenCV itself is missing: dlerror names the library.
                failure = dlerror().map { String(cString: $0) } ?? "cannot load \(path)"
                continue
            }
            func symbol<T>(_ name: String, _ type: T.Type) -> T? {
                dlsym(handle, name).map { unsafeBitCast($0, to: type) }
            }
            guard let open = symbol("vfx_facenet_open", Open.self), let free = symbol("vfx_facenet_free", Free.self),
                  let run = symbol("vfx_facenet_run", Run.self), let threads = symbol("vfx_facenet_threads", Threads.self) else {
                failure = "\(path) is not vidfx's face network library"
                continue
            }
            return .success(FaceNetLibrary(open: open, free: free, run: run, threads: threads))
        }
        if let failure {
            return .failure(DetectionError("face detector", "cannot load OpenCV's dnn module (apt install libopencv-dnn406, or make setup): \(failure)"))
        }
        return .failure(DetectionError("face detector", "\(fileName) is not beside vidfx or in PREFIX/lib/vidfx (make build or make install put it there)"))
    }
}
