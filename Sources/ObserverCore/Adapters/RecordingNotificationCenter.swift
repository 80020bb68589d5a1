public import Foundation


/// Foundation's `NotificationCenter`, recorded: an app swaps it in with one line and
/// keeps its notification code as it is.
///
/// ```swift
/// let center = NotificationCenter.default                                  // before
/// let center = RecordingNotificationCenter(registry: recording.registry)   // after
/// ```
///
/// It offers `NotificationCenter`'s block-based API under the same names and forwards every
/// call to a real `NotificationCenter` — `NotificationCenter.default` unless another is
/// given — which delivers exactly as it always does (its queues, its `object` filtering,
/// synchronous `post`): a post made straight to `NotificationCenter.default` elsewhere in
/// the app still reaches the observers added here (it is delivered, not recorded as a
/// post). Around that, the registry records:
/// - every `addObserver(forName:object:queue:using:)` as a registration on the channel
///   `*.<name>`, with its call site, queue and `object` filter; its owner is the returned
///   token, or `owner:` when given. The same call site adding again on the same name while
///   its earlier block is live is a `duplicate-registration`, owner or not (the observer
///   added on every appearance); `owner:` tells apart different objects observing from one
///   line. `queue: .main` (or `expectsMainThread: true` for a block that updates
///   main-thread state) makes a delivery off main an `off-main-delivery`; `scope:` makes a
///   block that outlives its screen a `leaked-registration` warning;
/// - every `post` as a change of that channel (its value: the sender and the `userInfo`
///   keys), with each block's delivery (duration, thread, main or not);
/// - every `removeObserver`: of a token (reason `explicit`), of a token already removed or
///   of an object that was never added (`removeUnregistered`, the classic bugs). A token
///   handed to another recording center that forwards to a different `NotificationCenter`
///   removes nothing there (Foundation keeps calling the block): it is recorded as
///   `removeUnregistered` naming the still-live registration, whose later deliveries
///   follow.
///
/// Block observers live as long as Foundation keeps them: until `removeObserver`, or until
/// the forwarding `NotificationCenter` itself goes (never, for `.default`). The real center
/// holds the observer, the observer holds its token, and the token holds the recorded
/// registration, so discarding the token, or this recording center (a function-local
/// `let center = RecordingNotificationCenter(...)`), changes nothing: the block keeps being
/// called and recorded, and a session ending with it live shows it as leaked. Any recording
/// center forwarding to the same `NotificationCenter` removes a token, as any holder of
/// `NotificationCenter.default` can.
///
/// Notification names are channels like any other, so `never-posted-key` catches a
/// misspelled name. Foundation's methods are not `open` on Linux, so this is not a
/// subclass: hold it as `RecordingNotificationCenter` (code typed `NotificationCenter`
/// can use `forwardingCenter`, unrecorded). Observers for all names (`forName: nil`) are
/// recorded on the channel `*.*`.
///
/// Thread-safe, like `NotificationCenter`.
public final class RecordingNotificationCenter: Sendable {
    /// The real center every call is forwarded to.
    public let forwardingCenter: NotificationCenter
    /// The registry that records.
    public let registry: ObserverRegistry

    /// Creates a recording center.
    /// - Parameters:
    ///   - registry: records everything (`recording.registry` of a journal session).
    ///   - forwardingCenter: the center that delivers: `NotificationCenter.default` by
    ///     default, so that code posting to the default center directly still reaches the
    ///     observers added here; pass `NotificationCenter()` for a private center (tests
    ///     that must not hear the rest of the process).
    public init(registry: ObserverRegistry, forwardingTo forwardingCenter: NotificationCenter = .default) {
        self.registry = registry
        self.forwardingCenter = forwardingCenter
    }

    /// Adds a block observer for `name`, as `NotificationCenter.addObserver(forName:object:queue:using:)`
    /// does, and records the registration.
    /// - Parameters:
    ///   - name: the notification to observe; `nil` for all.
    ///   - object: only notifications from this sender; `nil` for any.
    ///   - queue: the operation queue the block runs on; `nil` for the posting thread.
    ///   - owner: who the observer is for, held weakly; the token by default.
    ///   - expectsMainThread: the block updates main-thread state, so a delivery off main
    ///     (a post from a background thread with `queue: nil`) is a bug to diagnose;
    ///     implied by `queue: .main`.
    ///   - scope: the stretch of the app's life (a screen being visible) the observer is
    ///     for: still live when it ends, and delivered to after, it is reported as leaked.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    ///   - block: called with each notification.
    /// - Returns: the token to pass to `removeObserver(_:)`. The center keeps it (and the
    ///   block) until then, like `NotificationCenter`.
    @discardableResult
    public func addObserver(
        forName name: Notification.Name?, object: Any?, queue: OperationQueue?, owner: AnyObject? = nil,
        expectsMainThread: Bool = false, scope: ObservationScope? = nil,
        file: String = #fileID, line: Int = #line, function: String = #function,
        using block: @escaping @Sendable (Notification) -> Void
    ) -> any NSObjectProtocol {
        addRecordedObserver(
            forName: name, object: object, queue: queue, owner: owner, expectsMainThread: expectsMainThread,
            scope: scope, callSite: CallSite(file: file, line: line, function: function), using: block
        )
    }

    /// `addObserver`, returning the token as its own type.
    private func addRecordedObserver(
        forName name: Notification.Name?, object: Any?, queue: OperationQueue?, owner: AnyObject?,
        expectsMainThread: Bool, scope: ObservationScope?, callSite: CallSite,
        using block: @escaping @Sendable (Notification) -> Void
    ) -> NotificationToken {
        let channel = channel(for: name?.rawValue ?? "*")
        let token = NotificationToken(name: name, registry: registry, forwardingCenter: forwardingCenter)
        let sender = object.flatMap(Self.asObject)
        let entry = registry.register(
            on: channel, owner: owner ?? token, payload: Notification.self, options: [.new],
            queue: Self.label(of: queue), expectsMainThread: expectsMainThread || queue === OperationQueue.main,
            sender: sender, scope: scope, callSite: callSite
        ) { _, notification in
            block(notification.load(as: Notification.self))
        }
        token.registration = entry.info
        token.senderObject = sender
        let registry = self.registry
        // Strong: the real center keeps the token (and so the registration) as long as it
        // keeps the observer. The cycle through `token.forwarded` ends at removal.
        token.attach(forwardingCenter.addObserver(forName: name, object: object, queue: queue) { note in
            registry.deliverForwarded(entry, carrier: token, payload: note)
        })
        return token
    }

    /// Posts `notification` through the real center, recorded.
    /// - Parameters:
    ///   - notification: what to post.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    public func post(_ notification: Notification, file: String = #fileID, line: Int = #line, function: String = #function) {
        if registry.hasSink {
            let channel = channel(for: notification.name.rawValue)
            registry.recordForwardedPost(
                on: channel, value: { describe(notification) }, callSite: CallSite(file: file, line: line, function: function)
            )
        }
        forwardingCenter.post(notification)
    }

    /// Posts a notification through the real center, recorded, as
    /// `NotificationCenter.post(name:object:userInfo:)` does.
    /// - Parameters:
    ///   - name: the notification's name.
    ///   - object: the sender.
    ///   - userInfo: what it carries; the journal records its keys only.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    public func post(
        name: Notification.Name, object: Any?, userInfo: [AnyHashable: Any]? = nil,
        file: String = #fileID, line: Int = #line, function: String = #function
    ) {
        post(Notification(name: name, object: object, userInfo: userInfo), file: file, line: line, function: function)
    }

    /// Removes an observer, as `NotificationCenter.removeObserver(_:)` does, and records it:
    /// a token of this center is removed (reason `explicit`); a token already removed, or
    /// any other object (never added here), is recorded as `removeUnregistered`.
    /// - Parameters:
    ///   - observer: a token `addObserver` returned.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    public func removeObserver(_ observer: Any, file: String = #fileID, line: Int = #line, function: String = #function) {
        remove(observer, name: nil, object: nil, callSite: CallSite(file: file, line: line, function: function))
    }

    /// Removes an observer's registrations for `name` from `object`, as
    /// `NotificationCenter.removeObserver(_:name:object:)` does, and records it. A token
    /// whose name or sender does not match is left in place, and the request recorded as
    /// `removeUnregistered`.
    /// - Parameters:
    ///   - observer: a token `addObserver` returned.
    ///   - name: only if it observes this name; `nil` for any.
    ///   - object: only if it filters by this sender; `nil` for any.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    public func removeObserver(
        _ observer: Any, name: Notification.Name?, object: Any?,
        file: String = #fileID, line: Int = #line, function: String = #function
    ) {
        remove(observer, name: name, object: object, callSite: CallSite(file: file, line: line, function: function))
    }

    /// The notifications named `name` as an async sequence, recorded like `changes()`: one
    /// registration at the call site (the loop's line), owned by a `ChangeStream` object,
    /// removed with the reason `streamEnded` when the loop exits, its task is cancelled or
    /// the sequence is dropped. (Foundation on Linux has no `notifications(named:)`; this is
    /// the same idea, recorded.)
    ///
    /// Buffering: unbounded, like Apple's `notifications(named:object:)`: notifications are
    /// events, not states, so none is dropped; a consumer that stops reading should end
    /// its loop.
    /// - Parameters:
    ///   - name: the notification to observe.
    ///   - object: only notifications from this sender; `nil` for any.
    ///   - scope: the stretch of the app's life the loop is for: still waiting when it
    ///     ends, and delivered to after, the loop is reported as leaked.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    /// - Returns: a sequence that never finishes by itself: it ends when its consumer stops.
    public func notifications(
        named name: Notification.Name, object: Any? = nil, scope: ObservationScope? = nil,
        file: String = #fileID, line: Int = #line, function: String = #function
    ) -> AsyncStream<Notification> {
        let (stream, continuation) = AsyncStream.makeStream(of: Notification.self, bufferingPolicy: .unbounded)
        let owner = ChangeStream()
        let token = addRecordedObserver(
            forName: name, object: object, queue: nil, owner: owner, expectsMainThread: false, scope: scope,
            callSite: CallSite(file: file, line: line, function: function)
        ) { note in
            // `Notification` is not `Sendable` (its `object` and `userInfo` are `Any`), yet
            // handing it to another thread is what NotificationCenter does with every
            // queue-delivered notification. This value is this observer's own copy and is
            // not touched after the hand-over, so the transfer is safe.
            nonisolated(unsafe) let handedOver = note
            continuation.yield(handedOver)
        }
        // Keeps the owner (and so the registration) alive exactly as long as the sequence.
        continuation.onTermination = { [self] _ in
            end(token, reason: .streamEnded)
            withExtendedLifetime(owner) {}
        }
        return stream
    }

    /// Removes a token's observer because its sequence ended (no removal was asked for, so
    /// nothing is reported if it is already gone).
    private func end(_ token: NotificationToken, reason: RemovalReason) {
        guard let registration = token.registration else { return }
        if let forwarded = token.detach() {
            forwardingCenter.removeObserver(forwarded)
        }
        registry.remove(registrationID: registration.id, info: registration, reason: reason, callSite: nil, reportMissing: false)
    }

    private func remove(_ observer: Any, name: Notification.Name?, object: Any?, callSite: CallSite) {
        guard let token = observer as? NotificationToken, let registration = token.registration else {
            forwardingCenter.removeObserver(observer, name: name, object: object)
            if let other = Self.asObject(observer) {
                registry.reportForwardedUnregistered(object: other, key: name?.rawValue, callSite: callSite)
            }
            return
        }
        guard token.forwardingCenter === forwardingCenter else {
            // Added to another NotificationCenter: Foundation removes nothing here and keeps
            // calling the block. Recorded as that (`removeUnregistered` naming the
            // registration, still live) in this registry if the registration is its own.
            forwardingCenter.removeObserver(token, name: name, object: object)
            if token.registry === registry {
                registry.reportForwardedUnmatched(registration, callSite: callSite)
            } else {
                registry.reportForwardedUnregistered(object: token, key: name?.rawValue, callSite: callSite)
            }
            return
        }
        // The same NotificationCenter: the removal is real whichever recording center asks,
        // and recorded in the registry that recorded the addition.
        let matches = (name == nil || name == token.name)
            && (object == nil || Self.asObject(object!).map { $0 === token.senderObject } == true)
        guard matches else {
            token.registry.reportForwardedUnregistered(object: token, key: name?.rawValue, callSite: callSite)
            return
        }
        if let forwarded = token.detach() {
            forwardingCenter.removeObserver(forwarded)
        }
        // Already removed: the registry reports it, naming the registration.
        token.registry.remove(
            registrationID: registration.id, info: registration, reason: .explicit, callSite: callSite, reportMissing: true
        )
    }

    /// The channel of a notification name. If the same registry already uses that name for
    /// its own notifications (`observe(notification:)`, whose payload is another type), the
    /// center records on `NotificationCenter:<name>` instead, so the two never mix payloads.
    private func channel(for key: String) -> Channel {
        let channel = registry.channel(subject: nil, key: key, policy: .multicast, compatibleWith: Notification.self)
        if channel.payloadType == ObjectIdentifier(Notification.self) { return channel }
        return registry.channel(
            subject: nil, key: "NotificationCenter:" + key, policy: .multicast, payload: Notification.self
        )
    }

    /// The sender and `userInfo` keys as the journal's value text:
    /// `object: Player#2; userInfo: reason, track`.
    private func describe(_ notification: Notification) -> String {
        var parts: [String] = []
        if let object = notification.object {
            parts.append("object: " + (Self.asObject(object).map(registry.describe) ?? String(describing: type(of: object))))
        }
        if let keys = notification.userInfo?.keys {
            parts.append("userInfo: " + keys.map { String(describing: $0.base) }.sorted().joined(separator: ", "))
        }
        return parts.joined(separator: "; ")
    }

    /// `value` as an object if it is an instance of a class (a value type would be boxed
    /// anew on every conversion, and get a new id each time).
    private static func asObject(_ value: Any) -> AnyObject? {
        type(of: value) is AnyClass ? value as AnyObject : nil
    }

    /// A dispatch queue carrying `queue`'s identity for the registration record: the main
    /// queue for `OperationQueue.main`, else the operation queue's underlying queue or a
    /// queue named after it. The registry never delivers on it (the real center does).
    private static func label(of queue: OperationQueue?) -> DispatchQueue? {
        guard let queue else { return nil }
        if queue === OperationQueue.main { return DispatchQueue.main }
        return queue.underlyingQueue ?? DispatchQueue(label: queue.name ?? "OperationQueue")
    }
}

/// The token `RecordingNotificationCenter.addObserver` returns: pass it to
/// `removeObserver(_:)`. When it is the observer's owner, the journal names it
/// `NotificationToken#N`.
public final class NotificationToken: NSObject, @unchecked Sendable {
    // Set once in `addObserver` before the token is returned or can be called back, and
    // only read afterwards: the registry's lock publishes them to other threads.
    let name: Notification.Name?
    var registration: RegistrationInfo?
    weak var senderObject: AnyObject?
    /// The registry that recorded the addition, and records the removal.
    let registry: ObserverRegistry
    /// The real center the observer was added to, which alone can remove it (weak: that
    /// center holds the token through the observer's block).
    weak var forwardingCenter: NotificationCenter?
    /// The real center's observer until it is removed (`detach`): the only mutable state,
    /// under its lock. Holding it while the real center holds the block that holds the
    /// token is a cycle, ended by `detach`.
    private let forwarded = Protected<(any NSObjectProtocol)?>(nil)

    init(name: Notification.Name?, registry: ObserverRegistry, forwardingCenter: NotificationCenter) {
        self.name = name
        self.registry = registry
        self.forwardingCenter = forwardingCenter
    }

    /// Keeps the real center's observer, once, in `addObserver`.
    func attach(_ observer: any NSObjectProtocol) {
        forwarded.withLock { $0 = observer }
    }

    /// The real center's observer, to remove there, the first time it is asked for; `nil`
    /// once removed.
    func detach() -> (any NSObjectProtocol)? {
        forwarded.withLock { value in
            defer { value = nil }
            return value
        }
    }
}
