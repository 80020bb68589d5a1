import Foundation
import SystemShim

/// The usual way of leaving a trace: one text line per event, formatted by string
/// interpolation as a Swift app writes it, with a timestamp read from the monotonic clock,
/// then `fputs` into a file through stdio's buffer (a `write(2)` every few kilobytes). An
/// anchor for the recorder's calling-thread cost. Writes into a scratch file the caller
/// removes. (Not `vsnprintf`: Swift's `withVaList` spends ~20,000 instructions per line
/// casting the arguments, which is Swift's cost, not a log line's.)
final class LogLine {
    private let file: UnsafeMutablePointer<FILE>
    private let kinds = ["changed", "delivered"]

    init(path: String) throws {
        guard let file = fopen(path, "w") else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot create \(path)"])
        }
        self.file = file
    }

    deinit {
        fclose(file)
    }

    /// Writes one line. Not inlined: an app calls its logger across a module boundary.
    @inline(never)
    func record(kind: Int, registration: UInt64, old: Int64, new: Int64) {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        let line = "\(spec.tv_sec).\(spec.tv_nsec) \(kinds[kind]) channel=Subject#1.value registration=\(registration) old=\(old) new=\(new)\n"
        fputs(line, file)
    }

    /// `count` events as a fan-out-1 app produces them: a `changed` then a `delivered`.
    func burst(from first: Int, count: Int) {
        for number in first..<(first + count) {
            record(kind: number & 1, registration: 2, old: Int64(number), new: Int64(number + 1))
        }
    }

    /// Empties the file (between rounds, not timed), so a long run does not fill the disk.
    func restart() {
        fflush(file)
        ftruncate(fileno(file), 0)
        rewind(file)
    }
}
