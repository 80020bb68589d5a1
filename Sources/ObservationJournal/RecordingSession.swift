import JournalStore
import Foundation
public import ObserverCore

/// A recording session: an `ObserverRegistry` whose every action is written to a journal.
///
/// Use `registry` exactly like a plain registry (pass it to `ObservableValue`,
/// `CallbackProperty`, `observe(notification:…)`); the recording costs the calling thread
/// only the hand-over of each event to an in-memory buffer. A background thread writes
/// the buffer to the journal in batched transactions.
///
/// Writing never crashes or stalls the app: if it fails (disk full, file removed), the
/// recording stops, `lastError` says why, `counters.unwritten` counts what was lost, and
/// the registry keeps delivering as before. Thread-safe.
public final class RecordingSession: Sendable {
    /// The registry to use; everything it does is recorded.
    public let registry: ObserverRegistry
    /// The session's id in the journal (`sessions.id`).
    public let sessionID: Int64
    /// The journal's file.
    public let path: String

    private let buffer: EventBuffer

    init(writer: SessionWriter, options: Journal.Options, onError: (@Sendable (JournalError) -> Void)?) {
        let buffer = EventBuffer(
            capacity: options.bufferCapacity, policy: options.whenBufferFull,
            gatherMilliseconds: options.batchDelayMilliseconds
        )
        self.buffer = buffer
        self.registry = ObserverRegistry(sink: buffer)
        self.sessionID = writer.sessionID
        self.path = writer.database.path
        let path = self.path
        let handle = WriterHandle(writer)
        let thread = Thread {
            Self.drain(buffer, into: handle, path: path, onError: onError)
        }
        thread.name = "ObservationJournal writer \(writer.sessionID)"
        thread.start()
    }

    deinit {
        close()
    }

    /// Returns when every event recorded so far is committed to the journal (or recording
    /// has stopped on an error: see `lastError`).
    public func flush() {
        buffer.flush()
    }

    /// Ends the session cleanly: first `registry.sweep()`, so registrations of owners
    /// that are gone are recorded as removed (`ownerDeallocated`), then commits every
    /// event and marks the session ended cleanly. Returns when that is done. Events after
    /// `close()` are not recorded; those of threads already waiting for room in a full
    /// buffer when it began are (they were handed over before it). The registry itself
    /// keeps working. Calling it again does nothing.
    public func close() {
        if buffer.currentPhase == .recording { registry.sweep() }
        buffer.close()
    }

    /// Why recording stopped, if it did; `nil` while all is well.
    public var lastError: JournalError? { buffer.lastError }

    /// Whether events are still being recorded (not closed, no error).
    public var isRecording: Bool { buffer.currentPhase == .recording }

    /// What the session did with its events so far.
    public var counters: RecordingCounters { buffer.counters }

    // MARK: - The writer thread

    /// The writer, owned by the writer thread, which lets it go (closing the connection)
    /// before it reports the end of the session, so that when `close()` returns the file is
    /// no longer open (the app may move or delete it).
    private final class WriterHandle: @unchecked Sendable {
        var writer: SessionWriter?
        init(_ writer: SessionWriter) { self.writer = writer }
    }

    /// Takes batches from the buffer and commits them until the session ends or a write
    /// fails.
    private static func drain(
        _ buffer: EventBuffer, into handle: WriterHandle, path: String,
        onError: (@Sendable (JournalError) -> Void)?
    ) {
        buffer.writerStarted()
        var spare = PendingEvents(capacity: buffer.capacity)
        defer { handle.writer = nil }
        // No local reference to the writer: setting `handle.writer` to nil must free it.
        while var batch = buffer.takeBatch(swapping: &spare), handle.writer != nil {
            do {
                try handle.writer?.write(batch)
            } catch {
                handle.writer = nil
                let failure = JournalFile.classify(error, path: path)
                buffer.failed(batch, error: failure)
                onError?(failure)
                buffer.announced()
                return
            }
            if batch.endsSession {
                handle.writer = nil
                buffer.committed(batch)
                return
            }
            buffer.committed(batch)
            batch.pending.removeAll()
            spare = batch.pending
        }
    }
}

/// The name of `RecordingSession` before 1.0: what `Journal.start` returns is a recording
/// session (one `sessions` row of the journal), not a second kind of registry.
@available(*, deprecated, renamed: "RecordingSession")
public typealias RecordingRegistry = RecordingSession
