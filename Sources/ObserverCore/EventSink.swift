/// Receives every action of an `ObserverRegistry` as an `ObserverEvent`.
///
/// Called synchronously on the thread performing the action. Events that change the
/// registry's state (registered, replaced, removed, changed, scope events) are handed
/// over while the registry holds the lock that guards that change, so their order at
/// the sink is the order in which the registry performed them: exactly, for the events
/// of one channel (each channel has its own lock, which registrations, removals and posts
/// on it all take), and for actions the program orders (one thread's, or threads that
/// synchronise with each other). Only actions on different channels that ran at the
/// same time on different threads may reach the sink in either order — they were not
/// ordered to begin with. `record` must therefore be quick and must never call back into
/// the registry. Deliveries and skips are reported outside the locks.
public protocol EventSink: Sendable {
    /// Takes one event. Must not call back into the registry.
    func record(_ event: ObserverEvent)
}
