public import Dispatch

extension ObserverRegistry {
    /// Registers `callback` for the notification `name`, for `owner`.
    ///
    /// Notification channels have no subject: any object may post the name. Pass
    /// `sender` to be told only of posts by that object (held weakly).
    /// - Parameters:
    ///   - name: the notification's name.
    ///   - sender: only posts by this object reach the callback; `nil` for any sender.
    ///   - owner: held weakly; the callback receives it. When it is deallocated the
    ///     registration is removed and never called again.
    ///   - queue: deliver on this queue (asynchronously) instead of the posting thread.
    ///   - expectsMainThread: declare that the callback must run on the main thread.
    ///   - scope: the scope this registration is declared for.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    ///   - callback: called with the owner and the notification.
    /// - Returns: the registration's token: releasing or cancelling it removes the
    ///   registration, so keep it as long as you want notifications.
    /// - Precondition: `name` is not already recorded by a `RecordingNotificationCenter` of
    ///   this registry (its payload is another type); that traps, naming both types. The
    ///   other order is fine: the center then records on `NotificationCenter:<name>`.
    public func observe<Owner: AnyObject>(
        notification name: String, sender: AnyObject? = nil, owner: Owner,
        queue: DispatchQueue? = nil, expectsMainThread: Bool = false, scope: ObservationScope? = nil,
        file: String = #fileID, line: Int = #line, function: String = #function,
        _ callback: @escaping @Sendable (Owner, PostedNotification) -> Void
    ) -> ObservationToken {
        let channel = channel(subject: nil, key: name, policy: .multicast, payload: PostedNotification.self)
        let entry = register(
            on: channel, owner: owner, options: [.new], queue: queue,
            expectsMainThread: expectsMainThread, sender: sender, scope: scope,
            callSite: CallSite(file: file, line: line, function: function), callback: callback
        )
        return ObservationToken(registry: self, entry: entry)
    }

    /// Posts the notification `name` to its observers, in registration order.
    /// - Parameters:
    ///   - name: the notification's name.
    ///   - sender: the posting object; observers filtering by sender see only their own.
    ///   - payload: passed to observers as `PostedNotification.payload`.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    /// - Precondition: as for `observe(notification:)`, `name` is not one a
    ///   `RecordingNotificationCenter` of this registry already records.
    public func post(
        notification name: String, sender: AnyObject? = nil, payload: (any Sendable)? = nil,
        file: String = #fileID, line: Int = #line, function: String = #function
    ) {
        let channel = channel(subject: nil, key: name, policy: .multicast, payload: PostedNotification.self)
        let senderRef = sender.map { object in state.withLock { $0.identities.ref(for: object) } }
        let callSite = sink == nil ? nil : CallSite(file: file, line: line, function: function)
        dispatch(
            on: channel, payload: PostedNotification(name: name, sender: senderRef, payload: payload),
            unchanged: false, isPrior: false, sender: sender, callSite: callSite,
            values: { ChangeValues(new: $0.payload.map { EventValue($0) }) }
        )
    }

    /// Removes `owner`'s observers of the notification `name` (reason `explicit`);
    /// reports `removeUnregistered` if it has none.
    /// - Parameters:
    ///   - name: the notification's name.
    ///   - owner: the owner whose registrations go.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    public func removeObservers(
        notification name: String, owner: AnyObject,
        file: String = #fileID, line: Int = #line, function: String = #function
    ) {
        removeObservers(
            owner: owner, subject: nil, key: name, reason: .explicit,
            callSite: CallSite(file: file, line: line, function: function)
        )
    }
}
