import Dispatch

extension ObservableValue {
    /// Registers a main-actor `callback` for changes of this value, for `owner`: the shape
    /// of a `@MainActor` view model that updates its own state when the value changes.
    ///
    /// The callback is isolated to the main actor, so it may read and mutate the owner's
    /// main-actor state directly (no `MainActor.assumeIsolated`). It is delivered
    /// asynchronously on the main queue, after the change, in change order; the registration
    /// is recorded with the main queue and as expecting the main thread, so a delivery
    /// elsewhere would be diagnosed (`off-main-delivery`).
    ///
    /// `Owner` is `Sendable`, as every `@MainActor` class is: the callback hands it to the
    /// main actor. May be called from any thread. With `.initial`, the current value is delivered on the
    /// main queue too, before any later change.
    /// - Parameters:
    ///   - owner: held weakly; the callback receives it, so it need not capture it. When it
    ///     is deallocated the registration is removed and never called again.
    ///   - options: what to be told; `.old` and `.new` by default.
    ///   - scope: the scope this registration is declared for.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    ///   - callback: called on the main actor with the owner and the change.
    /// - Returns: the registration's token: releasing or cancelling it removes the
    ///   registration, so keep it (typically in the owner) as long as you want changes.
    public func observeOnMain<Owner: AnyObject & Sendable>(
        owner: Owner, options: ObservationOptions = [.old, .new], scope: ObservationScope? = nil,
        file: String = #fileID, line: Int = #line, function: String = #function,
        _ callback: @escaping @MainActor @Sendable (Owner, ValueChange<Value>) -> Void
    ) -> ObservationToken {
        // Every delivery of a registration with the main queue runs on the main queue,
        // which is the main actor's executor: asserting it is checked, not assumed blindly
        // (it traps if that ever stops being true, rather than racing).
        register(
            owner: owner, options: options, queue: DispatchQueue.main, expectsMainThread: true, scope: scope,
            callSite: CallSite(file: file, line: line, function: function)
        ) { owner, change in
            let change = change.load(as: ValueChange<Value>.self).filtered(by: options)
            let owner = unsafeDowncast(owner, to: Owner.self)
            MainActor.assumeIsolated { callback(owner, change) }
        }
    }
}
