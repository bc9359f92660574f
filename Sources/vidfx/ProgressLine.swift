import Foundation
import FrameSource

#if canImport(Glibc)
import Glibc
#endif

/// The progress line on stderr: percent, frames, speed (fps and × realtime), ETA.
/// Redrawn in place on a terminal; `json` prints one object per update for scripts.
final class ProgressLine {
    enum Style: String {
        case auto, json, none
    }

    private let style: Style
    private let total: Int?
    private let frameRate: Double
    private let started = ContinuousClock.now
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var drew = false
    private let damage: (() -> InputDamage)?

    /// `total` is the expected frame count when known; `damage`, what the input has lost
    /// so far (segments skipped, damaged packets), goes into each JSON update.
    init(style: Style, quiet: Bool, total: Int?, frameRate: Double, damage: (() -> InputDamage)? = nil) {
        self.damage = damage
        if quiet { self.style = .none }
        else if style == .auto { self.style = isatty(STDERR_FILENO) != 0 ? .auto : .none }
        else { self.style = style }
        self.total = total
        self.frameRate = frameRate
    }

    func update(frames: Int, force: Bool = false) {
        guard style != .none else { return }
        let now = ContinuousClock.now
        guard force || now - lastDraw >= .milliseconds(250) else { return }
        lastDraw = now
        let elapsed = max(1e-6, (now - started) / .seconds(1))
        let fps = Double(frames) / elapsed
        let speed = fps / frameRate
        let percent = total.map { $0 > 0 ? min(100, Double(frames) * 100 / Double($0)) : 100 }
        let eta = total.map { fps > 0 ? Double(max(0, $0 - frames)) / fps : 0 }
        switch style {
        case .json:
            var fields = ["\"frames\": \(frames)", "\"fps\": \(round(fps * 10) / 10)", "\"speed\": \(round(speed * 100) / 100)",
                          "\"elapsed\": \(round(elapsed * 10) / 10)"]
            if let percent { fields.append("\"percent\": \(round(percent * 10) / 10)") }
            if let total { fields.append("\"total\": \(total)") }
            if let eta { fields.append("\"eta\": \(round(eta * 10) / 10)") }
            if let damage = damage?() {
                fields.append("\"skippedSegments\": \(damage.segmentsSkipped)")
                fields.append("\"damagedPackets\": \(damage.damagedPackets)")
                fields.append("\"undecodablePackets\": \(damage.undecodablePackets)")
            }
            try? FileHandle.standardError.write(contentsOf: Data(("{" + fields.joined(separator: ", ") + "}\n").utf8))
        case .auto:
            var line = ""
            if let percent { line += String(format: "%5.1f%%  ", percent) }
            line += "\(frames)" + (total.map { "/\($0)" } ?? "") + " frames  "
            line += String(format: "%.1f fps  %.2fx", fps, speed)
            if let eta { line += String(format: "  ETA %d:%02d", Int(eta) / 60, Int(eta) % 60) }
            try? FileHandle.standardError.write(contentsOf: Data(("\r\u{1B}[K" + line).utf8))
            drew = true
        case .none:
            break
        }
    }

    /// Ends the line (so later messages start on their own line).
    func end(frames: Int) {
        update(frames: frames, force: true)
        if drew { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
    }
}
