import Foundation
import JournalStore
extension Journal {
    /// What `Journal.open` does when nothing (or an empty file) is at the path.
    public enum Creation: Sendable, Equatable {
        /// The file must exist and be a journal.
        case openExisting
        /// Create a new journal (mode 0600) if nothing is at the path. An empty (0-byte)
        /// file is refused: it may be something else's.
        case createIfMissing
        /// Like `createIfMissing`, and also turn an existing empty (0-byte) file into a
        /// new journal.
        case createIfMissingOrEmpty
    }

    /// What a recording session does when its buffer is full.
    public enum BufferFullPolicy: Sendable, Equatable {
        /// The recording thread waits until the writer has made room: nothing is lost,
        /// but a slow disk slows the app down. A thread waiting in a registration,
        /// removal or change holds the registry's lock, so other threads using the
        /// registry wait with it.
        case wait
        /// The event is dropped, and the journal records a `gap` event (reason
        /// `bufferFull`, detail `dropped=N`) at the place of each run of dropped events:
        /// a gap is never silent.
        case drop
    }

    /// How a journal is opened and how its sessions record.
    public struct Options: Sendable {
        /// What to do when nothing (or an empty file) is at the path.
        public var creation: Creation
        /// Events a session buffers in memory before the recording threads must wait (or
        /// drop). The session reserves a ring of this many places (rounded up to a power of
        /// two, about 200 bytes each: 3.1 MiB at the default) when it starts; values below 1
        /// count as 1 and above `maxBufferCapacity` as that.
        public var bufferCapacity: Int
        /// The largest `bufferCapacity` a session uses (4,194,304 places, about 800 MiB).
        public static let maxBufferCapacity = 1 << 22
        /// What a session does when its buffer is full.
        public var whenBufferFull: BufferFullPolicy
        /// How change values are stored.
        public var values: ValueRecording
        /// How long a write waits for another connection's lock before failing.
        public var busyTimeoutMilliseconds: Int
        /// How long the writer waits to gather a larger batch once it has events, in
        /// milliseconds: the most an event waits before it is committed when nothing
        /// calls `flush()`.
        public var batchDelayMilliseconds: Int
        /// The CI run or job the journal's sessions belong to (a CI job's number, a build
        /// id): stored with each session and carried by every row `obsreplay export --fleet`
        /// writes, beside the journal's id and the host. `nil` (the default): the
        /// environment variable `OBSERVATION_JOURNAL_RUN` when it is set and not empty,
        /// else none.
        public var run: String?
        /// Failures to inject into the journal's SQLite calls (debug builds, tests only).
        var faults: SQLiteFaultPlan?

        /// Options; the defaults create a missing journal, buffer 16,384 events, wait
        /// when the buffer is full and store values in full up to 200 characters.
        /// - Parameters:
        ///   - creation: what to do when nothing (or an empty file) is at the path.
        ///   - bufferCapacity: events buffered before recording threads wait or drop (1 to
        ///     `maxBufferCapacity`).
        ///   - whenBufferFull: wait (the default, nothing lost) or drop and record a gap.
        ///   - values: how change values are stored.
        ///   - busyTimeoutMilliseconds: how long a write waits for another writer's lock.
        ///   - batchDelayMilliseconds: the longest an event waits before it is committed.
        ///   - run: the CI run or job the sessions belong to (default: the environment's
        ///     `OBSERVATION_JOURNAL_RUN`, if set).
        public init(
            creation: Creation = .createIfMissing, bufferCapacity: Int = 16_384,
            whenBufferFull: BufferFullPolicy = .wait, values: ValueRecording = ValueRecording(),
            busyTimeoutMilliseconds: Int = 5_000, batchDelayMilliseconds: Int = 10, run: String? = nil
        ) {
            self.run = run
            self.creation = creation
            self.bufferCapacity = bufferCapacity
            self.whenBufferFull = whenBufferFull
            self.values = values
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.batchDelayMilliseconds = batchDelayMilliseconds
        }
    }

    /// The environment variable a session's run is read from when `Options.run` is `nil`.
    static let runVariable = "OBSERVATION_JOURNAL_RUN"
}

extension Journal.Options {
    /// `run`, else the environment's `OBSERVATION_JOURNAL_RUN` (not empty), else `nil`.
    var resolvedRun: String? {
        if let run { return run }
        guard let value = ProcessInfo.processInfo.environment[Journal.runVariable], !value.isEmpty else { return nil }
        return value
    }
}
