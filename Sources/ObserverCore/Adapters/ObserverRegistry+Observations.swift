@_spi(SwiftUI) import Observation

extension ObserverRegistry {
    /// Swift Observation's `Observations` (Swift 6.2), recorded like `changes()`: the value
    /// `emit` computes from `@Observable` properties, now and after each change of what it
    /// read, as an async sequence.
    ///
    /// ```swift
    /// for await total in registry.observations({ cart.total }) { … }   // was: Observations { cart.total }
    /// ```
    ///
    /// One registration at the call site (the loop's line), owned by a `ChangeStream` object,
    /// on the channel `Observations@File.swift:42`; each change is recorded (its value the
    /// new `emit()`) with its delivery to the sequence; the registration is removed with the
    /// reason `streamEnded` when the loop exits, its task is cancelled or the sequence is
    /// dropped, and a loop still waiting when the session ends is a live registration.
    ///
    /// Differences from `Observations`: `emit` runs after each change on the thread that
    /// wrote (not on the caller's actor), and each change is one element (no transaction
    /// coalescing); the buffer keeps the newest value, so a slow consumer sees the latest.
    /// - Parameters:
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    ///   - emit: reads `@Observable` properties and returns the value to deliver.
    /// - Returns: a sequence that starts with the current value and never finishes by itself.
    public func observations<Element: Sendable>(
        file: String = #fileID, line: Int = #line, function: String = #function,
        _ emit: @escaping @Sendable () -> Element
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(1))
        let owner = ChangeStream()
        let channel = self.channel(
            subject: nil, key: "Observations@\(file.split(separator: "/").last ?? Substring(file)):\(line)",
            policy: .multicast, payload: Element.self
        )
        let entry = register(
            on: channel, owner: owner, payload: Element.self, options: [.initial, .new], queue: nil,
            expectsMainThread: false, sender: nil, scope: nil, callSite: CallSite(file: file, line: line, function: function)
        ) { _, value in
            continuation.yield(value.assumingMemoryBound(to: Element.self).pointee)
        }
        let loop = ObservationsLoop(registry: self, channel: channel, entry: entry, carrier: owner, emit: emit)
        continuation.onTermination = { [self] _ in
            loop.end()
            remove(registrationID: entry.info.id, info: entry.info, reason: .streamEnded, callSite: nil, reportMissing: false)
            withExtendedLifetime(owner) {}
        }
        continuation.yield(loop.arm())
        return stream
    }
}

/// The tracking behind one recorded `observations` sequence: armed with Observation's
/// `didSet` form, it records each change, delivers the new value and arms again.
final class ObservationsLoop<Element: Sendable>: @unchecked Sendable {
    private let registry: ObserverRegistry
    private let channel: Channel
    private let entry: RegistrationEntry
    private weak var carrier: AnyObject?
    private let emit: @Sendable () -> Element
    private let ended = Protected(false)

    init(
        registry: ObserverRegistry, channel: Channel, entry: RegistrationEntry, carrier: AnyObject,
        emit: @escaping @Sendable () -> Element
    ) {
        self.registry = registry
        self.channel = channel
        self.entry = entry
        self.carrier = carrier
        self.emit = emit
    }

    /// Runs `emit` under a new tracking and returns its value.
    func arm() -> Element {
        Observation.withObservationTracking(emit, didSet: { [self] tracking in
            tracking.cancel()
            guard !ended.withLock({ $0 }), let carrier else { return }
            let value = arm()
            registry.recordForwardedPost(on: channel, value: { String(describing: value) }, callSite: nil)
            registry.deliverForwarded(entry, carrier: carrier, payload: value)
        })
    }

    /// The sequence ended: the next change cancels the tracking and records nothing.
    func end() {
        ended.withLock { $0 = true }
    }
}
