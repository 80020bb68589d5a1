/// Receives every action of an `ObserverRegistry` as an `ObserverEvent`.
///
/// Called synchronously on the thread performing the action. Events that change the
/// registry's state (registered, replaced, removed, changed, scope events) are handed
/// over while the registry holds its lock, so their order at the sink is the order in
/// which the registry performed them; `record` must therefore be quick and must never
/// call back into the registry. Deliveries and skips are reported outside the lock.
public protocol EventSink: Sendable {
    /// Takes one event. Must not call back into the registry.
    func record(_ event: ObserverEvent)
}
