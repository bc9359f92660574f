import Dispatch
import Foundation

/// Splits rows into bands and runs them on all cores (FFmpeg's slice threading).
enum Bands {
    static let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Calls `body` with disjoint row ranges covering `0..<height`, concurrently.
    static func run(height: Int, minimumRows: Int = 16, _ body: @Sendable (Range<Int>) -> Void) {
        let bands = max(1, min(cores * 2, height / max(minimumRows, 1)))
        if bands == 1 { body(0..<height); return }
        let rowsPerBand = (height + bands - 1) / bands
        DispatchQueue.concurrentPerform(iterations: bands) { i in
            let lo = i * rowsPerBand
            let hi = min(height, lo + rowsPerBand)
            if lo < hi { body(lo..<hi) }
        }
    }
}
