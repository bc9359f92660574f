import CFFmpegShim
import Foundation

/// FFmpeg's filter and device libraries, which vidfx loads when a job first needs them
/// (HDR, interlaced or captured input) rather than at start: see `vidfx_on_demand.h`.
package enum OnDemandLibrary {
    case filters, devices

    /// Loads the library (once). Nil when it is there, otherwise why not, naming its file.
    package func load() -> String? {
        (self == .filters ? vfx_load_avfilter() : vfx_load_avdevice()).map { String(cString: $0) }
    }

    /// Starts loading the library on a thread of its own, for a job that will need it
    /// soon: loading libavfilter and its dependencies takes tens of milliseconds, which
    /// then overlap the decoder's first pictures instead of delaying the first frame.
    /// ``load()`` waits for it to finish and reports its outcome.
    package func loadInBackground() {
        let library = self
        Thread { _ = library.load() }.start()
    }
}
