extension ObserverRegistry {
    /// Swift Observation's `Observations`, recorded: the value `emit` computes from
    /// `@Observable` properties, first at the loop's first step and again after each change
    /// of what it read, as an async sequence that behaves like `Observations`
    /// (see `RecordedObservations`).
    ///
    /// ```swift
    /// for await total in registry.observations({ cart.total }) { … }   // was: Observations { cart.total }
    /// ```
    ///
    /// Each iterator (each `for await` loop) is one registration at the call site, owned by
    /// a `ChangeStream` object, on the channel `Observations@File.swift:42`, made at its
    /// first step; its first value is recorded as the registration's initial delivery, each
    /// later value as a change (its value the new `emit()`) with its delivery to the loop. The
    /// registration is removed with the reason `streamEnded` when the loop exits, its task is
    /// cancelled or `emit` throws; a loop still waiting when `scope` ends is a leaked
    /// registration, and one waiting when the session ends is live.
    ///
    /// Built on Observation's public `withObservationTracking(_:onChange:)`, so it runs on
    /// every platform the package supports (`Observations` needs macOS and iOS 26).
    /// - Parameters:
    ///   - scope: the stretch of the app's life the loop is for (a screen); a loop still
    ///     registered when it ends is reported as leaked.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    ///   - emit: reads `@Observable` properties and returns the value to deliver; it runs on
    ///     the iterating actor.
    /// - Returns: a sequence that never finishes by itself: it ends when its task is
    ///   cancelled or `emit` throws.
    public func observations<Element: Sendable, Failure: Error>(
        scope: ObservationScope? = nil, file: String = #fileID, line: Int = #line, function: String = #function,
        _ emit: @escaping () throws(Failure) -> Element
    ) -> RecordedObservations<Element, Failure> {
        let channel = self.channel(
            subject: nil, key: "Observations@\(file.split(separator: "/").last ?? Substring(file)):\(line)",
            policy: .multicast, payload: Element.self
        )
        return RecordedObservations(
            registry: self, emit: emit, scope: scope, callSite: CallSite(file: file, line: line, function: function),
            channel: channel
        )
    }
}
