import Observation

/// The values of a closure over `@Observable` properties, as an async sequence that the
/// journal records: what `ObserverRegistry.observations(_:)` returns, in place of Swift's
/// `Observations`.
///
/// Each iterator runs its own observation, as `Observations`' do: its first `next()` computes
/// the first value; each later `next()` waits for a change of what the last computation read
/// and then computes the value again on the iterating actor, after the change's synchronous
/// stretch of code there is over. Several properties set together are one new value, and a
/// burst of changes made while the loop was busy is the latest value, once.
///
/// Not `Sendable`: it holds the closure as written, which may be isolated to the actor
/// that made it (a `@MainActor` model's properties read from `@MainActor` code); iterate it
/// there, with as many iterators as you like.
public struct RecordedObservations<Element: Sendable, Failure: Error>: AsyncSequence {
    let registry: ObserverRegistry
    let emit: () throws(Failure) -> Element
    let scope: ObservationScope?
    let callSite: CallSite
    let channel: Channel

    /// Makes an iterator with an observation of its own; it registers at its first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// Iterates a `RecordedObservations`: one observation, one registration in the journal.
    public struct Iterator: AsyncIteratorProtocol {
        private let sequence: RecordedObservations
        /// `nil` before the first `next()`, and again once the iteration ended.
        private var run: ObservationsRun?
        private var finished = false

        init(sequence: RecordedObservations) {
            self.sequence = sequence
        }

        /// The next value: the first at once, later ones after a change of what the previous
        /// computation read. `nil` once the iterating task is cancelled; the error `emit`
        /// threw, once, and then `nil`.
        /// - Parameter actor: the iterating actor, on which the values are computed; leave
        ///   the default.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(Failure) -> Element? {
            guard !finished else { return nil }
            guard !Task.isCancelled else { return end() }
            let run: ObservationsRun, initial: Bool
            if let existing = self.run {
                await existing.waitForChange()
                guard !Task.isCancelled else { return end() }
                (run, initial) = (existing, false)
            } else {
                (run, initial) = (ObservationsRun(sequence: sequence), true)
                self.run = run
            }
            switch run.track(sequence.emit) {
            case .success(let value):
                run.deliver(value, initial: initial)
                return value
            case .failure(let error):
                _ = end()
                throw error
            }
        }

        private mutating func end() -> Element? {
            finished = true
            run?.end()
            run = nil
            return nil
        }
    }
}

/// One iterator's observation: its registration (owned by a `ChangeStream`, so deliveries
/// are hand-offs), the change signal from Swift Observation, and the iterator's waiting.
final class ObservationsRun: @unchecked Sendable {
    private struct Waiting {
        var changed = false
        var cancelled = false
        var waiter: CheckedContinuation<Void, Never>?
        var ended = false
    }

    private let registry: ObserverRegistry
    private let channel: Channel
    private let owner = ChangeStream()
    private let entry: RegistrationEntry
    private let waiting = Protected(Waiting())

    init<Element, Failure>(sequence: RecordedObservations<Element, Failure>) {
        registry = sequence.registry
        channel = sequence.channel
        entry = sequence.registry.register(
            on: sequence.channel, owner: owner, payload: Element.self, options: [.initial, .new], queue: nil,
            expectsMainThread: false, sender: nil, scope: sequence.scope, callSite: sequence.callSite
        ) { _, _ in }
    }

    deinit { end() }

    /// Computes `emit` under a new Swift Observation tracking, whose first change wakes
    /// `waitForChange`.
    func track<Element, Failure>(_ emit: () throws(Failure) -> Element) -> Result<Element, Failure> {
        Observation.withObservationTracking {
            Result { () throws(Failure) -> Element in try emit() }
        } onChange: { [weak self] in
            self?.changed()
        }
    }

    /// Records `value` as delivered to the loop: as the registration's initial value, or
    /// after the change that produced it.
    func deliver<Element: Sendable>(_ value: Element, initial: Bool) {
        guard registry.hasSink else { return }
        if !initial {
            registry.recordForwardedPost(on: channel, value: { String(describing: value) }, callSite: nil)
        }
        registry.deliverForwarded(entry, carrier: owner, payload: value, initial: initial ? EventValue(value) : nil)
    }

    /// Returns once a change happened since the last `track` (at once if one did), or the
    /// task is cancelled.
    func waitForChange() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = waiting.withLock { waiting -> Bool in
                    guard !waiting.changed, !waiting.cancelled else {
                        waiting.changed = false
                        return true
                    }
                    waiting.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            waiting.withLock { waiting -> CheckedContinuation<Void, Never>? in
                waiting.cancelled = true
                defer { waiting.waiter = nil }
                return waiting.waiter
            }?.resume()
        }
    }

    /// Swift Observation's `onChange`, on the writing thread, before the write.
    private func changed() {
        waiting.withLock { waiting -> CheckedContinuation<Void, Never>? in
            guard let waiter = waiting.waiter else {
                waiting.changed = true
                return nil
            }
            waiting.waiter = nil
            return waiter
        }?.resume()
    }

    /// The iteration is over (finished, cancelled, or its iterator dropped): the
    /// registration is removed, once.
    func end() {
        let first = waiting.withLock { waiting in
            defer { waiting.ended = true }
            return !waiting.ended
        }
        guard first else { return }
        registry.remove(registrationID: entry.info.id, info: entry.info, reason: .streamEnded, callSite: nil, reportMissing: false)
    }
}
