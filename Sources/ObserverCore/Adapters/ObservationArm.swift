@_spi(SwiftUI) import Observation

/// One arming of a recorded `withObservationTracking`: its registration, and the Swift
/// Observation tracking behind it, which stays installed after the firing only to record
/// the changes the app is no longer told of. When no owner is given it is the
/// registration's owner, and the journal names it `ObservationArm#N`.
///
/// Thread-safe: Observation calls `willSet` on whatever thread writes.
final class ObservationArm: @unchecked Sendable {
    /// What a firing hands `onChange` through the registry (nothing: Observation's
    /// `onChange` takes no argument).
    struct Firing {}

    /// Made only to be captured by Observation's `willSet` closure: alive after the
    /// arming only if Observation kept the closure.
    final class Sentinel: Sendable {}

    /// Identifies a tracking site: an owner (its journal id; 0 for none) and a call site.
    struct SiteKey: Hashable {
        var owner: UInt64
        var callSite: CallSite
    }

    /// A tracking site: which arm is its latest, so that earlier ones stop recording.
    final class Site: @unchecked Sendable {
        private let lock = Protected<ObjectIdentifier?>(nil)
        private weak var owner: AnyObject?
        private let hasOwner: Bool

        init(owner: AnyObject?) {
            self.owner = owner
            hasOwner = owner != nil
        }

        /// The latest arm of the site.
        var latest: ObjectIdentifier? {
            get { lock.withLock { $0 } }
            set { lock.withLock { $0 = newValue } }
        }

        /// Whether the site's owner is gone: nothing can arm it again.
        var isAbandoned: Bool { hasOwner && owner == nil }
    }

    private enum Phase {
        /// Armed: the next change fires `onChange`.
        case armed
        /// Fired (or never installed): changes are recorded as missed.
        case fired
        /// Retired: re-armed since, or its owner is gone; Observation's tracking is
        /// cancelled at its next change.
        case retired
    }

    private let registry: ObserverRegistry
    private let channel: Channel
    private weak var owner: AnyObject?
    private let hasOwner: Bool
    private let onChange: @Sendable () -> Void
    private let phase = Protected<Phase>(.armed)
    private var entry: RegistrationEntry?
    /// Set once, before Observation can call back.
    var site: Site?

    init(registry: ObserverRegistry, channel: Channel, owner: AnyObject?, onChange: @escaping @Sendable () -> Void) {
        self.registry = registry
        self.channel = channel
        self.owner = owner
        hasOwner = owner != nil
        self.onChange = onChange
    }

    /// Records the arming, once `apply` has run. `readSomething`: Observation installed a
    /// tracking (the arming is live); otherwise it never fires, and is recorded as a
    /// registration asking for nothing, released at once.
    func armed(readSomething: Bool, callSite: CallSite) {
        let entry = registry.register(
            on: channel, owner: owner ?? self, payload: Firing.self, options: readSomething ? [.prior] : [],
            queue: nil, expectsMainThread: false, sender: nil, scope: nil, callSite: callSite
        ) { [onChange] _, _ in onChange() }
        let firedMeanwhile = phase.withLock { phase -> Bool in
            self.entry = entry
            defer { if !readSomething { phase = .fired } }
            return phase != .armed
        }
        if !readSomething || firedMeanwhile {
            // Nothing to fire (or it already fired, while `apply` ran, before it was recorded).
            registry.remove(
                registrationID: entry.info.id, info: entry.info, reason: readSomething ? .tokenCancelled : .tokenReleased,
                callSite: nil, reportMissing: false
            )
        }
    }

    /// A property this arming read is about to change (Observation's `willSet`, on the
    /// writing thread).
    func willSet(_ tracking: ObservationTracking) {
        let (previous, entry) = phase.withLock { phase -> (Phase, RegistrationEntry?) in
            let previous = phase
            switch phase {
            case .armed: phase = .fired
            case .fired:
                if site?.latest != ObjectIdentifier(self) || (hasOwner && owner == nil) { phase = .retired }
            case .retired: break
            }
            return (phase == .retired ? .retired : previous, self.entry)
        }
        switch previous {
        case .retired:
            tracking.cancel()
        case .armed:
            guard let entry else {
                // Armed and changed before `armed` recorded it (another thread wrote while
                // `apply` ran): Observation calls `onChange`; so does this.
                onChange()
                return
            }
            registry.recordForwardedPost(on: channel, value: { Self.describe(tracking) }, callSite: nil)
            guard let carrier = owner ?? (hasOwner ? nil : self) else {
                // The owner is gone: the registration goes with it, as the registry's own do;
                // Observation still calls `onChange` (typically a `[weak self]` no-op).
                registry.remove(
                    registrationID: entry.info.id, info: entry.info, reason: .ownerDeallocated, callSite: nil,
                    reportMissing: false
                )
                onChange()
                return
            }
            registry.deliverForwarded(entry, carrier: carrier, payload: Firing())
            registry.remove(
                registrationID: entry.info.id, info: entry.info, reason: .tokenCancelled, callSite: nil, reportMissing: false
            )
        case .fired:
            registry.recordForwardedPost(on: channel, value: { Self.describe(tracking) }, callSite: nil)
        }
    }

    /// The changing property as the journal's value: `Model.(Int)`, its type and its value's
    /// type (Swift Observation gives key paths no names on Linux).
    private static func describe(_ tracking: ObservationTracking) -> String {
        guard let keyPath = tracking.changed else { return "?" }
        let path = type(of: keyPath)
        return "\(path.rootType).(\(path.valueType))"
    }
}
