import Observation

extension ObserverRegistry {
    /// Swift Observation's `withObservationTracking(_:onChange:)`, recorded: an app changes
    /// one line per tracking site, from `withObservationTracking { … } onChange: { … }` to
    /// `registry.withObservationTracking(owner: self) { … } onChange: { … }`.
    ///
    /// It behaves exactly as Observation's, and is built on it: `apply` runs now and its
    /// result is returned; `onChange` is evaluated only when `apply` read an observable
    /// property, and the first time one of those is about to change (`willSet`, on the
    /// writing thread) it runs once; the tracking is then over until the app arms it again.
    /// Around that, the journal records, on the channel `withObservationTracking@File.swift:42`
    /// of `owner` (`*` without one):
    /// - each arming as a registration at the call site, for `owner` and in `scope`; its
    ///   options are `prior` (told before the change), or empty when `apply` read no
    ///   observable property: then Observation installs nothing, `onChange` can never run,
    ///   and the registration is removed at once (`tokenReleased`);
    /// - the firing as a change (with no value: Observation's public API does not say which
    ///   property changed) and the delivery of `onChange` (timed, on the writer's thread),
    ///   then the registration's removal `tokenCancelled` (Observation forgets the tracking
    ///   after calling it).
    ///
    /// The changes after a firing reach no code and are not recorded: Observation's public
    /// API stops telling of them, so a journal cannot show what code that forgets to arm the
    /// tracking again missed. An arming live when its `scope` ends is a leaked registration.
    ///
    /// Without a sink it is Observation's own function, unrecorded.
    /// - Parameters:
    ///   - owner: whom the tracking is for (a view, a view model), held weakly.
    ///   - scope: the stretch of the app's life the tracking is for (a screen); an arming
    ///     still live when it ends is reported as leaked.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    ///   - apply: reads the observable properties to track, as Observation's `apply`.
    ///   - onChange: called once, before the first change of a property `apply` read.
    /// - Returns: what `apply` returned.
    @discardableResult
    public func withObservationTracking<T>(
        owner: AnyObject? = nil, scope: ObservationScope? = nil, file: String = #fileID, line: Int = #line,
        function: String = #function, _ apply: () -> T, onChange: @autoclosure () -> @Sendable () -> Void
    ) -> T {
        guard hasSink else { return Observation.withObservationTracking(apply, onChange: onChange()) }
        let callSite = CallSite(file: file, line: line, function: function)
        let channel = self.channel(
            subject: owner, key: "withObservationTracking@\(file.split(separator: "/").last ?? Substring(file)):\(line)",
            policy: .multicast, payload: ObservationArm.Firing.self
        )
        let arm = ObservationArm(registry: self, channel: channel, owner: owner)
        let result = Observation.withObservationTracking(apply, onChange: arm.handler(onChange()))
        arm.armed(callSite: callSite, scope: scope)
        return result
    }
}
