import SystemShim
import Foundation
import Synchronization

/// `diagnosing: 12/200 journals` on standard error, redrawn in place: only on a terminal,
/// only once the work has taken over a second, never in machine-readable output (the
/// caller decides `enabled`). Thread-safe: workers report as they finish.
final class Progress: Sendable {
    private let total: Int
    private let enabled: Bool
    private let delay: Double
    private let start = Date()
    private let shown = Mutex(false)

    /// `delay`: seconds of work before anything is drawn (`OBSREPLAY_PROGRESS_DELAY_MS`
    /// changes it, so a test can see the line without a slow run).
    init(total: Int, enabled: Bool, environment: [String: String] = [:]) {
        self.total = total
        self.enabled = enabled
        delay = environment["OBSREPLAY_PROGRESS_DELAY_MS"].flatMap(Double.init).map { $0 / 1000 } ?? 1
    }

    /// Whether it may draw at all (a terminal, human output).
    var isEnabled: Bool { enabled }

    func update(_ done: Int) {
        guard enabled, Date().timeIntervalSince(start) >= delay else { return }
        shown.withLock { $0 = true }
        Self.write("\r\u{1B}[Kdiagnosing: \(done)/\(total) journals")
    }

    /// Clears the line if anything was drawn (before a notice, and at the end).
    func clear() {
        if shown.withLock({ $0 }) { Self.write("\r\u{1B}[K") }
    }

    /// Clears the line if anything was drawn.
    func finish() {
        if shown.withLock({ $0 }) { Self.write("\r\u{1B}[K") }
    }

    private static func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { systemWrite(2, $0.baseAddress!, $0.count) }
    }
}
