import SystemShim
import Dispatch
import Foundation
import JournalAnalysis
import Synchronization

/// `diagnosing: 340,000/1,000,000 events (34%)`, `reporting: 2,000/4,000 events, pass 2 of 2
/// (75%)` (work that reads the events more than once counts each pass against the events
/// there are, not their multiple) or `diagnosing: 12/200 journals` on
/// standard error, redrawn in place at most every `interval`: only when enabled (the caller
/// checks that standard output and standard error are terminals and that the output is
/// for a person: never in a pipe, `--json` or `--quiet`), and only once the work has taken
/// over a second, so quick commands never flicker.
///
/// Thread-safe. The work reports through `counter` (any thread); a background loop draws.
/// Everything else the command writes to the terminal while it runs goes through
/// `quietly`, which erases the line first and keeps it from being redrawn meanwhile.
final class Progress: Sendable {
    /// What is counted.
    enum Unit: String {
        case journals, events
    }

    /// The work's count so far; the reading code adds to it.
    let counter = ReadProgress()
    private let verb: String
    private let unit: Unit
    private let total: Int64
    private let passes: Int64
    private let enabled: Bool
    private let delay: Duration
    private let interval: Duration
    private let start = ContinuousClock.now
    /// Whether the line is on the screen (it must be erased before other output).
    private let shown = Mutex(false)
    private let stop = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let finished = Atomic(false)

    /// `total`: the units of one pass; the counter counts every pass's (`passes` times
    /// `total` in all). `environment`: `OBSREPLAY_PROGRESS_DELAY_MS` changes the one-second
    /// delay (0 draws at once: how a test sees the line without a slow run).
    init(_ verb: String, total: Int64, passes: Int64 = 1, unit: Unit, enabled: Bool, environment: [String: String] = [:]) {
        self.verb = verb
        self.unit = unit
        self.total = max(0, total)
        self.passes = max(1, passes)
        self.enabled = enabled
        delay = .milliseconds(environment["OBSREPLAY_PROGRESS_DELAY_MS"].flatMap(Int.init) ?? 1000)
        interval = .milliseconds(200)
        guard enabled else { return }
        // Drawn here, before any work, when there is no delay: what a test can rely on.
        if delay == .zero { draw() }
        DispatchQueue.global(qos: .utility).async { [self] in
            while stop.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
                if ContinuousClock.now - start >= delay { draw() }
            }
            stopped.signal()
        }
    }

    /// Whether it may draw at all.
    var isEnabled: Bool { enabled }

    /// Runs `body` (which writes to the terminal) with the line erased and not redrawn.
    func quietly(_ body: () -> Void) {
        shown.withLock { shown in
            if shown { Self.write("\r\u{1B}[K") }
            shown = false
            body()
        }
    }

    /// Stops drawing and erases the line. Call it once the work is done, before the result.
    func finish() {
        guard enabled, !finished.exchange(true, ordering: .relaxed) else { return }
        stop.signal()
        stopped.wait()
        quietly {}
    }

    private func draw() {
        let text = Self.line(verb, done: counter.count, total: total, passes: passes, unit: unit)
        shown.withLock { shown in
            Self.write("\r\u{1B}[K" + text)
            shown = true
        }
    }

    /// `reporting: 3/4 events, pass 2 of 2 (87%)`: `done` units of `passes` passes over
    /// `total` units each (the percentage is of all passes).
    static func line(_ verb: String, done: Int64, total: Int64, passes: Int64, unit: Unit) -> String {
        let (all, overflow) = total.multipliedReportingOverflow(by: passes)
        let whole = overflow ? Int64.max : all
        let done = min(max(0, done), whole)
        // The pass under way, and how far into it.
        let pass = total > 0 ? min(done / total, passes - 1) : 0
        var text = "\(verb): \(grouped(done - pass * total))/\(grouped(total)) \(unit.rawValue)"
        if passes > 1 { text += ", pass \(pass + 1) of \(passes)" }
        if unit == .events && whole > 0 { text += " (\(Int64((Double(done) * 100 / Double(whole)).rounded(.down)))%)" }
        return text
    }

    /// The events of `sessions`: counts from a hostile journal (negative, or summing past
    /// `Int64.max`) saturate instead of trapping.
    static func events(of sessions: [SessionSummary]) -> Int64 {
        var total: Int64 = 0
        for session in sessions {
            let (sum, overflow) = total.addingReportingOverflow(max(0, session.eventCount))
            total = overflow ? .max : sum
        }
        return total
    }

    /// `1,000,000`.
    static func grouped(_ value: Int64) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }

    fileprivate static func write(_ text: String) {
        _ = writeAll(2, text)
    }
}

extension CommandContext {
    /// A progress line for `total` units of work, drawn only when `allowed` (output for a
    /// person, no `--quiet`) and both standard output and standard error are terminals:
    /// never into a pipe, a file or a CI log.
    func progress(_ verb: String, total: Int64, passes: Int64 = 1, unit: Progress.Unit, allowed: Bool) -> Progress {
        Progress(
            verb, total: total, passes: passes, unit: unit, enabled: allowed && isTerminal(1) && isTerminal(2),
            environment: environment
        )
    }
}
