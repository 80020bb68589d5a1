import Synchronization

/// The handle of one registration: cancel it, or release it, and the registration goes.
///
/// Keep tokens in the owner (`var tokens: [ObservationToken]`): when the owner goes, its
/// tokens go, and their registrations with them — the Swift counterpart of a "dealloc
/// watcher". Releasing a token removes its registration at once (reason
/// `tokenReleased`); if the registration is already gone, releasing does nothing.
/// Cancelling a token whose registration was already removed on request is reported as
/// `removeUnregistered`, because removing twice is a bug worth seeing; cancelling one the
/// registry removed by itself (its owner or subject deallocated, or replaced in a single
/// slot) is a no-op recorded as `cancelAfterAutoRemoval`, because the app could not know.
/// A token released while its owner is being deallocated (the owner's `deinit` releases
/// its tokens) records the removal as `ownerDeallocated`, not `tokenReleased`.
///
/// Exception: the token returned by `CallbackProperty.assign` does *not* remove its
/// registration when released (a callback property keeps its callback until replaced or
/// cleared, and existing code discards the result); only `cancel()` removes it.
///
/// Thread-safe; may be released on any thread.
public final class ObservationToken: Sendable {
    private let registry: ObserverRegistry
    /// Set once cancelled, so releasing a cancelled token skips the registry entirely.
    private let cancelled = Atomic<Bool>(false)
    /// Whether releasing the token removes its registration (false only for the legacy
    /// callback-property slot, whose assignment must outlive a discarded token).
    private let removesOnRelease: Bool
    /// The registration this token controls.
    public let registration: RegistrationInfo

    /// How the registration ended, shared with the registry's entry.
    private let ending: RegistrationEnding
    /// The channel it was made on, to name in a `cancelAfterAutoRemoval` event.
    private let channel: ChannelInfo

    init(registry: ObserverRegistry, entry: RegistrationEntry, removesOnRelease: Bool = true) {
        self.registry = registry
        self.registration = entry.info
        self.ending = entry.ending
        self.channel = entry.channel.info
        self.removesOnRelease = removesOnRelease
    }

    /// Removes the registration now (reason `tokenCancelled`). If the registry had already
    /// removed it by itself, nothing changes and `cancelAfterAutoRemoval` is recorded; if
    /// it was removed on request before, `removeUnregistered` is.
    /// - Parameters:
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    public func cancel(file: String = #fileID, line: Int = #line, function: String = #function) {
        cancelled.store(true, ordering: .relaxed)
        registry.remove(
            registrationID: registration.id, info: registration, reason: .tokenCancelled,
            callSite: CallSite(file: file, line: line, function: function), reportMissing: true, ending: ending, channel: channel
        )
    }

    deinit {
        if cancelled.load(ordering: .relaxed) { return }
        guard removesOnRelease else {
            // A callback-property token kept by its owner goes in the owner's deinit: the
            // slot would empty itself at its next call anyway, so record the deallocation now.
            registry.removeIfOwnerGone(registrationID: registration.id, info: registration, ending: ending, channel: channel)
            return
        }
        registry.remove(
            registrationID: registration.id, info: registration, reason: .tokenReleased,
            callSite: nil, reportMissing: false
        )
    }
}
