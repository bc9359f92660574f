import CFFmpegShim
import Foundation

/// FFmpeg's filter and device libraries, which vidfx loads when a job first needs them
/// (HDR, interlaced or captured input) rather than at start: see `vidfx_on_demand.h`.
enum OnDemandLibrary {
    case filters, devices

    /// Loads the library (once). Nil when it is there, otherwise why not, naming its file.
    func load() -> String? {
        var message = [CChar](repeating: 0, count: 512)
        let status = self == .filters ? vfx_load_avfilter(&message, message.count) : vfx_load_avdevice(&message, message.count)
        if status == 0 { return nil }
        return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Starts loading the library on a thread of its own, for a job that will need it
    /// soon: loading libavfilter and its dependencies takes tens of milliseconds, which
    /// then overlap the decoder's first pictures instead of delaying the first frame.
    /// ``load()`` waits for it to finish and reports its outcome.
    func loadInBackground() {
        let library = self
        Thread { _ = library.load() }.start()
    }
}
