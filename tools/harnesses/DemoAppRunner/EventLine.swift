public import ObserverCore

/// One registry event as a line of text, split into what happened (`shape`, the same
/// wherever the story ran) and the thread facts (which depend on the calling thread).
///
/// Shapes name channels, registrations, owners, reasons and the functions of call sites,
/// never line numbers or thread numbers, so a test can write them down and compare runs
/// made on the main thread with runs made elsewhere.
public struct EventLine: Sendable, Equatable, CustomStringConvertible {
    /// What happened, such as `removed ScrollView#3.contentOffset r3 StretchyHeaderView#2
    /// explicit at removeFromSuperview()`.
    public var shape: String
    /// For registrations, deliveries and the like: whether the registration expects the
    /// main thread; `false` for other events.
    public var expectsMainThread: Bool
    /// Whether the event happened on the main thread.
    public var isMainThread: Bool
    /// Whether the event happened on the thread of the run's first event (the caller's).
    public var onCallingThread: Bool

    /// The line as the runner prints it: the shape, a tab, the thread facts.
    public var description: String {
        "\(shape)\texpectsMain=\(expectsMainThread) main=\(isMainThread) caller=\(onCallingThread)"
    }

    /// Parses a line `description` produced.
    public init?(parsing line: Substring) {
        let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        var facts: [Substring: Bool] = [:]
        for fact in parts[1].split(separator: " ") {
            let pair = fact.split(separator: "=")
            guard pair.count == 2, let value = Bool(String(pair[1])) else { return nil }
            facts[pair[0]] = value
        }
        guard let expects = facts["expectsMain"], let main = facts["main"], let caller = facts["caller"] else { return nil }
        self.init(shape: String(parts[0]), expectsMainThread: expects, isMainThread: main, onCallingThread: caller)
    }

    /// Creates a line from its parts.
    public init(shape: String, expectsMainThread: Bool, isMainThread: Bool, onCallingThread: Bool) {
        self.shape = shape
        self.expectsMainThread = expectsMainThread
        self.isMainThread = isMainThread
        self.onCallingThread = onCallingThread
    }

    /// The lines of a run's events, in order.
    public static func lines(of events: [ObserverEvent]) -> [EventLine] {
        let caller = events.first?.thread
        return events.map { event in
            EventLine(
                shape: shape(of: event), expectsMainThread: event.registration?.expectsMainThread ?? false,
                isMainThread: event.isMainThread, onCallingThread: event.thread == caller
            )
        }
    }

    /// `kind channel rID Owner#n [details]`, with only the fields the kind sets.
    static func shape(of event: ObserverEvent) -> String {
        var words = [event.kind.rawValue]
        if let channel = event.channel { words.append(channel.description) }
        if let registration = event.registration {
            words.append("r\(registration.id)")
            words.append(registration.owner.description)
        }
        switch event.kind {
        case .registered, .replaced:
            guard let registration = event.registration else { break }
            words.append("by \(registration.callSite.function) [\(registration.options)]")
            if registration.queueLabel != nil { words.append("queued") }
            if let sender = registration.sender { words.append("sender \(sender)") }
            if let scope = registration.scope { words.append("for \"\(scope.name)\"") }
            if let replaced = event.replaced {
                words.append("replacing r\(replaced.id) \(replaced.owner) by \(replaced.callSite.function)")
            }
        case .removed, .cancelAfterAutoRemoval, .ownerGone:
            if let reason = event.removalReason { words.append(reason.rawValue) }
        case .removeUnregistered:
            if let owner = event.owner, event.registration == nil { words.append("owner \(owner)") }
        case .changed:
            words.append("\(event.old?.description ?? "nil") -> \(event.new?.description ?? "nil")")
            words.append("live \(event.liveCount)")
        case .delivered:
            break
        case .skipped:
            if let reason = event.skipReason { words.append(reason.rawValue) }
        case .scopeBegan, .scopeEnded:
            if let scope = event.scope { words.append("\"\(scope.name)\"#\(scope.id)") }
        }
        if event.depth > 0 { words.append("depth \(event.depth)") }
        if let callSite = event.callSite { words.append("at \(callSite.function)") }
        return words.joined(separator: " ")
    }
}
