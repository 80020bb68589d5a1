public import Dispatch
import Synchronization

/// A value whose changes are observed through a registry: the typed property box of an
/// observable object (a player's `isPlaying`, a scroll view's `contentOffset`).
///
/// Each change posts old and new to every registration of the channel (`subject`, `key`),
/// in registration order. For `Equatable` values, registrations with `.onlyWhenChanged`
/// are skipped when old == new.
///
/// Thread-safe: reading and setting may happen on any thread; concurrent sets are
/// serialised, and each change carries the old value it actually replaced.
public final class ObservableValue<Value: Sendable>: Sendable {
    /// A pthread mutex, not `Synchronization.Mutex`, so ThreadSanitizer sees the locking.
    @usableFromInline let storage: Protected<Value>
    @usableFromInline let registry: ObserverRegistry
    @usableFromInline let channel: Channel
    @usableFromInline let isEqual: (@Sendable (Value, Value) -> Bool)?

    /// Creates a value observed on the channel (`subject`, `key`).
    /// - Parameters:
    ///   - initial: the starting value (not a change).
    ///   - subject: the object that owns this value; held weakly.
    ///   - key: the property's name as observers and the journal know it.
    ///   - registry: the registry that dispatches its changes.
    /// - Precondition: no value or callback property of another type is on the same
    ///   `subject` and `key` in this registry (values of the same type share the channel);
    ///   a second type traps, naming both types and the key, because its posts would
    ///   reach no one.
    public init(_ initial: Value, subject: AnyObject, key: String, registry: ObserverRegistry) {
        self.storage = Protected(initial)
        self.registry = registry
        self.channel = registry.channel(subject: subject, key: key, policy: .multicast, payload: ValueChange<Value>.self)
        self.isEqual = nil
    }

    /// Creates a value observed on the channel (`subject`, `key`), whose registrations
    /// may use `.onlyWhenChanged`.
    /// - Parameters:
    ///   - initial: the starting value (not a change).
    ///   - subject: the object that owns this value; held weakly.
    ///   - key: the property's name as observers and the journal know it.
    ///   - registry: the registry that dispatches its changes.
    /// - Precondition: no value or callback property of another type is on the same
    ///   `subject` and `key` in this registry (values of the same type share the channel);
    ///   a second type traps, naming both types and the key, because its posts would
    ///   reach no one.
    public init(_ initial: Value, subject: AnyObject, key: String, registry: ObserverRegistry) where Value: Equatable {
        self.storage = Protected(initial)
        self.registry = registry
        self.channel = registry.channel(subject: subject, key: key, policy: .multicast, payload: ValueChange<Value>.self)
        self.isEqual = { $0 == $1 }
    }

    /// The current value. Setting it posts a change (see `set(_:file:line:function:)`).
    @inlinable
    public var value: Value {
        get { read() }
        // A setter cannot take `#fileID`/`#line` defaults: the change is recorded without
        // a call site rather than with this file's. Use `set(_:)` to record where.
        set { set(newValue, callSite: nil) }
    }

    /// Sets the value and posts the change to every registration: a prior notification
    /// first to those that asked for it, then the change.
    /// - Parameters:
    ///   - newValue: the value to set.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    @inlinable
    public func set(_ newValue: Value, file: String = #fileID, line: Int = #line, function: String = #function) {
        set(newValue, callSite: registry.hasSink ? CallSite(file: file, line: line, function: function) : nil)
    }

    /// The post path, inlined into the caller's module where `Value` is concrete: the
    /// registry's `post` is not generic, so a change runs no unspecialised generic code
    /// (no generic metadata lookups per change).
    @inlinable
    func set(_ newValue: Value, callSite: CallSite?) {
        let isEqual = self.isEqual
        if channel.hasPriorObservers {
            var change = ValueChange<Value>(old: nil, new: newValue, isPrior: true)
            ErasedPayload.lending(&change) { payload, change in
                registry.post(
                    on: channel, isPrior: true, sender: nil, callSite: callSite, payload: payload,
                    produce: {
                        let current = read()
                        change.access { $0.old = current }
                        return isEqual?(current, newValue) ?? false
                    },
                    values: { change.access { ChangeValues(old: $0.old, new: $0.new) } },
                    copy: { change.access { PayloadCopy($0) } }
                )
            }
        }
        // The swap happens inside `produce`, which runs in the same critical section as
        // the recorded `changed` event: concurrent sets record a consistent old → new chain.
        var change = ValueChange<Value>(old: nil, new: newValue)
        ErasedPayload.lending(&change) { payload, change in
            registry.post(
                on: channel, isPrior: false, sender: nil, callSite: callSite, payload: payload,
                produce: {
                    let old = exchange(newValue)
                    change.access { $0.old = old }
                    return isEqual?(old, newValue) ?? false
                },
                values: { change.access { ChangeValues(old: $0.old, new: $0.new) } },
                copy: { change.access { PayloadCopy($0) } }
            )
        }
    }

    /// The current value, under the value's own lock.
    @inlinable
    func read() -> Value {
        storage.lock()
        defer { storage.unlock() }
        return storage.value
    }

    /// Stores `newValue` and returns the value it replaced, in one critical section.
    @inlinable
    func exchange(_ newValue: Value) -> Value {
        storage.lock()
        defer { storage.unlock() }
        let old = storage.value
        storage.value = newValue
        return old
    }

    /// Registers `callback` for changes of this value, for `owner`.
    ///
    /// - Parameters:
    ///   - owner: held weakly; the callback receives it, so it need not capture it. When
    ///     it is deallocated the registration is removed and never called again.
    ///   - options: what to be told; `.old` and `.new` by default.
    ///   - queue: deliver on this queue (asynchronously) instead of the posting thread.
    ///   - expectsMainThread: declare that the callback must run on the main thread
    ///     (implied by `queue: .main`); deliveries elsewhere are diagnosed.
    ///   - scope: the scope this registration is declared for.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    ///   - callback: called with the owner and the change.
    /// - Returns: the registration's token: releasing or cancelling it removes the
    ///   registration, so keep it (typically in the owner) as long as you want changes.
    @inlinable
    public func observe<Owner: AnyObject>(
        owner: Owner, options: ObservationOptions = [.old, .new], queue: DispatchQueue? = nil,
        expectsMainThread: Bool = false, scope: ObservationScope? = nil,
        file: String = #fileID, line: Int = #line, function: String = #function,
        _ callback: @escaping @Sendable (Owner, ValueChange<Value>) -> Void
    ) -> ObservationToken {
        // The per-delivery closure is built here, inlined into the caller's module, where
        // Value and Owner are concrete: the registry's delivery loop then calls fully
        // specialised code (built inside this module it would pay generic metadata
        // lookups and value witnesses on every delivery; see BENCHMARKS.md).
        let call: @Sendable (AnyObject, ErasedPayload) -> Void
        if options.isSuperset(of: [.old, .new]) {
            call = { owner, change in
                callback(unsafeDowncast(owner, to: Owner.self), change.load(as: ValueChange<Value>.self))
            }
        } else {
            call = { owner, change in
                let full = change.load(as: ValueChange<Value>.self)
                callback(unsafeDowncast(owner, to: Owner.self), full.filtered(by: options))
            }
        }
        return register(
            owner: owner, options: options, queue: queue, expectsMainThread: expectsMainThread, scope: scope,
            callSite: CallSite(file: file, line: line, function: function), call: call
        )
    }

    /// The non-generic part of `observe`: registers `call`, whose payload argument is a
    /// `ValueChange<Value>`, and delivers the initial value if asked to.
    @usableFromInline
    func register(
        owner: AnyObject, options: ObservationOptions, queue: DispatchQueue?, expectsMainThread: Bool,
        scope: ObservationScope?, callSite: CallSite, call: @escaping @Sendable (AnyObject, ErasedPayload) -> Void
    ) -> ObservationToken {
        let entry = registry.register(
            on: channel, owner: owner, payload: ValueChange<Value>.self, options: options, queue: queue,
            expectsMainThread: expectsMainThread, sender: nil, scope: scope, callSite: callSite, call: call
        )
        if options.contains(.initial) {
            let current = storage.withLock { $0 }
            registry.deliverInitial(
                entry, payload: ValueChange<Value>(old: nil, new: current, isInitial: true),
                value: { EventValue(current) }
            )
        }
        return ObservationToken(registry: registry, entry: entry)
    }

    /// Removes `owner`'s registrations on this value (reason `explicit`); reports
    /// `removeUnregistered` if it has none.
    /// - Parameters:
    ///   - owner: the owner whose registrations go.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    public func removeObservers(
        owner: AnyObject, file: String = #fileID, line: Int = #line, function: String = #function
    ) {
        registry.removeObservers(
            owner: owner, subject: nil, key: channel.info.key, knownChannel: channel, reason: .explicit,
            callSite: CallSite(file: file, line: line, function: function)
        )
    }

    /// Removes every registration on this value (reason `explicit`).
    /// - Parameters:
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    public func removeAllObservers(file: String = #fileID, line: Int = #line, function: String = #function) {
        registry.removeAll(on: channel, callSite: CallSite(file: file, line: line, function: function))
    }

    /// Owned by its subject, so this runs when the subject dies: its observers' registrations
    /// are removed now (`subjectDeallocated`) and the journal records the subject's death,
    /// even though nothing is ever posted on its channel again.
    deinit {
        registry.subjectStateReleased(channel)
    }

    /// The channel this value posts on.
    public var channelInfo: ChannelInfo { channel.info }
}
