public import Dispatch

/// A single callback slot, the shape of a plain callback property or a delegate: each
/// assignment *replaces* the previous callback.
///
/// Exists so legacy code with that shape can be used through the registry, recorded, and
/// its "only the last callback fires" bug diagnosed. The channel's policy is
/// `singleSlot`: every assignment while another owner's callback is live is a `replaced`
/// event naming both registrations and both call sites. New code wanting one-to-many
/// should use `ObservableValue` or notifications instead.
///
/// Thread-safe. The slot holds its callback strongly and its owner weakly; when the
/// owner is deallocated the slot empties itself.
public final class CallbackProperty<Payload: Sendable>: Sendable {
    @usableFromInline let registry: ObserverRegistry
    @usableFromInline let channel: Channel

    /// Creates an empty slot on the channel (`subject`, `key`).
    /// - Parameters:
    ///   - subject: the object exposing the callback property; held weakly.
    ///   - key: the property's name (`isPlayingChanged`).
    ///   - registry: the registry that records it.
    /// - Precondition: no value or callback property of another type is on the same
    ///   `subject` and `key` in this registry (values of the same type share the channel);
    ///   a second type traps, naming both types and the key, because its posts would
    ///   reach no one.
    public init(subject: AnyObject, key: String, registry: ObserverRegistry) {
        self.registry = registry
        self.channel = registry.channel(subject: subject, key: key, policy: .singleSlot, payload: Payload.self)
    }

    /// Assigns the callback, replacing whatever callback was there.
    ///
    /// Unlike `observe`, the returned token does **not** remove the callback when it is
    /// released: the slot keeps its callback until it is replaced, cleared, or its owner
    /// is deallocated, so existing code that ignores the result keeps working. Only
    /// `cancel()` on the token empties the slot (reason `tokenCancelled`), and only if
    /// this assignment is still the one in the slot; cancelling it after another
    /// assignment replaced it, or after its owner was deallocated, changes nothing and
    /// is recorded as `cancelAfterAutoRemoval`.
    /// - Parameters:
    ///   - owner: who assigns it; held weakly, passed to the callback.
    ///   - queue: deliver on this queue (asynchronously) instead of the calling thread.
    ///   - expectsMainThread: declare that the callback must run on the main thread.
    ///   - scope: the scope this assignment is declared for (a screen being visible); a
    ///     replacement after the scope ended is a hand-over, not a lost callback.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    ///   - callback: called with the owner and the payload on every `call(_:)`.
    /// - Returns: a token whose `cancel()` removes this assignment; releasing it does not.
    @discardableResult
    public func assign<Owner: AnyObject>(
        owner: Owner, queue: DispatchQueue? = nil, expectsMainThread: Bool = false,
        scope: ObservationScope? = nil,
        file: String = #fileID, line: Int = #line, function: String = #function,
        _ callback: @escaping @Sendable (Owner, Payload) -> Void
    ) -> ObservationToken {
        let entry = registry.register(
            on: channel, owner: owner, options: [.new], queue: queue,
            expectsMainThread: expectsMainThread, sender: nil, scope: scope,
            callSite: CallSite(file: file, line: line, function: function), callback: callback
        )
        return ObservationToken(registry: registry, entry: entry, removesOnRelease: false)
    }

    /// Calls the current callback, if any, with `payload`.
    /// - Parameters:
    ///   - payload: what to pass.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    @inlinable
    public func call(_ payload: Payload, file: String = #fileID, line: Int = #line, function: String = #function) {
        // Inlined where `Payload` is concrete, and the registry's `post` is not generic: a
        // call runs no unspecialised generic code (see `ObservableValue.set`).
        let callSite = registry.hasSink ? CallSite(file: file, line: line, function: function) : nil
        ErasedPayload.lending(payload) { erased in
            registry.post(
                on: channel, isPrior: false, sender: nil, callSite: callSite, payload: erased,
                produce: { false }, values: { ChangeValues(old: nil, new: payload) }, copy: { PayloadCopy(payload) }
            )
        }
    }

    /// Empties the slot (reason `explicit`); reports `removeUnregistered` if it was empty.
    /// - Parameters:
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    public func clear(file: String = #fileID, line: Int = #line, function: String = #function) {
        registry.removeAll(on: channel, callSite: CallSite(file: file, line: line, function: function))
    }

    /// Owned by its subject, so this runs when the subject dies: its observers' registrations
    /// are removed now (`subjectDeallocated`) and the journal records the subject's death,
    /// even though nothing is ever posted on its channel again.
    deinit {
        registry.subjectStateReleased(channel)
    }

    /// The channel this slot records on.
    public var channelInfo: ChannelInfo { channel.info }
}
