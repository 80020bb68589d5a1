extension ObservableValue {
    /// The changes of this value as an async sequence, for `for await`.
    ///
    /// ```swift
    /// for await change in player.isPlaying.changes() { … }
    /// ```
    ///
    /// Each call makes one registration, recorded with the call site of `changes()` (the
    /// loop's line) and owned by a `ChangeStream` object that lives as long as the sequence.
    /// When the loop exits (`break`, `return`, a thrown error), its task is cancelled, or the
    /// sequence is dropped unused, the registration is removed with the reason
    /// `streamEnded`. A sequence still being waited on when a session ends is a live
    /// registration, diagnosed as leaked like any other.
    ///
    /// **Buffering.** Changes are delivered on the setting thread into the sequence's buffer,
    /// which keeps the newest `bufferingNewest` changes (1 by default: the latest value). A
    /// consumer slower than the producer therefore skips intermediate changes and always
    /// sees the newest; with a larger limit it sees up to that many, oldest first. Every
    /// change handed to the sequence is recorded as delivered to it, including the ones
    /// the buffer later dropped, so the journal keeps them all.
    /// - Parameters:
    ///   - options: what to be told; `.old` and `.new` by default, `.initial` to get the
    ///     current value first, `.onlyWhenChanged` to skip changes where old == new.
    ///   - bufferingNewest: how many undelivered changes to keep; at least 1.
    ///   - scope: the stretch of the app's life the loop is for (a screen being visible):
    ///     a loop still waiting when it ends, and delivered to after, is reported as leaked
    ///     (a warning; the fix is to end the loop, for example by cancelling its task, when
    ///     the scope ends).
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    /// - Returns: a sequence that never finishes by itself: it ends when its consumer stops.
    public func changes(
        options: ObservationOptions = [.old, .new], bufferingNewest: Int = 1, scope: ObservationScope? = nil,
        file: String = #fileID, line: Int = #line, function: String = #function
    ) -> AsyncStream<ValueChange<Value>> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ValueChange<Value>.self, bufferingPolicy: .bufferingNewest(max(1, bufferingNewest))
        )
        let owner = ChangeStream()
        let token = register(
            owner: owner, options: options, queue: nil, expectsMainThread: false, scope: scope,
            callSite: CallSite(file: file, line: line, function: function)
        ) { _, change in
            continuation.yield(change.load(as: ValueChange<Value>.self).filtered(by: options))
        }
        let registry = self.registry
        // The termination handler keeps the owner (and so the registration) alive exactly
        // as long as the sequence: it runs once, when the consumer stops, and is then
        // released together with what it holds.
        continuation.onTermination = { _ in
            registry.remove(
                registrationID: token.registration.id, info: token.registration, reason: .streamEnded,
                callSite: nil, reportMissing: false
            )
            withExtendedLifetime(owner) {}
        }
        return stream
    }
}

/// The owner of the registration behind a `changes()` sequence: the journal names it
/// `ChangeStream#N`. It lives as long as the sequence.
final class ChangeStream: Sendable {
    init() {}
}
