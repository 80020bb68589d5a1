/// One arming of a recorded `withObservationTracking`: its registration, and the `onChange`
/// Swift Observation calls at the first change. When no owner is given it is the
/// registration's owner, and the journal names it `ObservationArm#N`.
///
/// Built on Observation's public `withObservationTracking(_:onChange:)` only, which tells
/// of one change and then forgets the tracking: the changes after the firing reach no
/// code, so they are not recorded (see `ObserverRegistry.withObservationTracking`).
///
/// Thread-safe: Observation calls `onChange` on whatever thread writes.
final class ObservationArm: @unchecked Sendable {
    /// What a firing hands `onChange` through the registry (nothing: Observation's
    /// `onChange` takes no argument).
    struct Firing {}

    private enum Phase {
        /// Armed: the next change fires `onChange`.
        case armed
        /// Fired, or never installed: Observation calls nothing more.
        case fired
    }

    private let registry: ObserverRegistry
    private let channel: Channel
    private weak var owner: AnyObject?
    private let hasOwner: Bool
    private let phase = Protected<Phase>(.armed)
    /// Set under `phase`'s lock, once, by `armed`.
    private var entry: RegistrationEntry?
    /// The app's `onChange`, set under `phase`'s lock when Observation asks for it (only
    /// when `apply` read an observable property).
    private var onChange: (@Sendable () -> Void)?

    init(registry: ObserverRegistry, channel: Channel, owner: AnyObject?) {
        self.registry = registry
        self.channel = channel
        self.owner = owner
        hasOwner = owner != nil
    }

    /// The closure Observation installs. Observation evaluates its `onChange` argument only
    /// when `apply` read an observable property: this runs then, and its having run is
    /// how the arming knows that something was read.
    func handler(_ onChange: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        phase.withLock { _ in self.onChange = onChange }
        return { [self] in fire() }
    }

    /// Records the arming, once `apply` has run. An arming that installed nothing (`apply`
    /// read no observable property) never fires: it is recorded as a registration asking
    /// for nothing (empty options), released at once.
    func armed(callSite: CallSite, scope: ObservationScope?) {
        let onChange = phase.withLock { _ in self.onChange }
        let readSomething = onChange != nil
        let entry = registry.register(
            on: channel, owner: owner ?? self, payload: Firing.self, options: readSomething ? [.prior] : [],
            queue: nil, expectsMainThread: false, sender: nil, scope: scope, callSite: callSite
        ) { _, _ in onChange?() }
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

    /// A property the arming read is about to change: Observation's `onChange`, on the
    /// writing thread, called once.
    private func fire() {
        let (previous, entry, onChange) = phase.withLock { phase -> (Phase, RegistrationEntry?, (@Sendable () -> Void)?) in
            defer { phase = .fired }
            return (phase, self.entry, self.onChange)
        }
        guard previous == .armed, let onChange else { return }
        guard let entry else {
            // Changed before `armed` recorded the arming (another thread wrote while
            // `apply` ran): Observation calls `onChange`; so does this.
            onChange()
            return
        }
        // The change's value is unknown: Observation's public API does not say which
        // property changed.
        registry.recordForwardedPost(on: channel, value: { nil }, callSite: nil)
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
    }
}
