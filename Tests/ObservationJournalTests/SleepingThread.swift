import Dispatch
import Foundation
import TestSupport

/// A thread of a test that runs `body`, and that the test can wait for until it is
/// blocked (a producer waiting for room in a full ring under `.wait`). The buffer does not
/// say who waits in it; Linux's `/proc` does: the thread's state is `S` (asleep) and its
/// count of voluntary switches does not move over `quietMicroseconds`, so it stayed
/// asleep all that time, which a thread only does in a wait.
final class SleepingThread: Sendable {
    static let quietMicroseconds: useconds_t = 10_000

    /// `/proc/PID/task/TID` of the thread, once it runs.
    private let task = Locked<String?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        Thread { [task, finished] in
            let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
            task.withLock { $0 = "/proc/" + (link ?? "thread-self-unreadable") }
            body()
            finished.signal()
        }.start()
    }

    /// Returns once the thread has been asleep, without waking, for `quietMicroseconds`.
    func waitUntilAsleep() {
        while true {
            guard let path = task.withLock({ $0 }) else {
                usleep(100)
                continue
            }
            let before = Self.sample(path)
            usleep(Self.quietMicroseconds)
            let after = Self.sample(path)
            if let before, before.state == "S", let after, after == before { return }
        }
    }

    /// Waits until `body` has returned.
    func join() { finished.wait() }

    /// The thread's scheduling state and voluntary switches; `nil` if unreadable.
    private static func sample(_ path: String) -> Sample? {
        guard let stat = try? String(contentsOfFile: path + "/stat", encoding: .utf8),
              let status = try? String(contentsOfFile: path + "/status", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // `TID (name) STATE ...`: the name may hold spaces and parentheses.
        let state = stat[stat.index(after: close)...].split(separator: " ").first.map(String.init) ?? ""
        let switches = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
        return Sample(state: state, switches: switches.map(String.init) ?? "")
    }

    private struct Sample: Equatable {
        var state: String
        var switches: String
    }
}
