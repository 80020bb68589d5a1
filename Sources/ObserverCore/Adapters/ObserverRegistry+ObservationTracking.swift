@_spi(SwiftUI) import Observation

extension ObserverRegistry {
    /// Swift Observation's `withObservationTracking(_:onChange:)`, recorded: an app changes
    /// one line per tracking site, from `withObservationTracking { … } onChange: { … }` to
    /// `registry.withObservationTracking(owner: self) { … } onChange: { … }`.
    ///
    /// It behaves exactly as Observation's: `apply` runs now and its result is returned; the
    /// first time a property it read is about to change (`willSet`, on the writing thread),
    /// `onChange` runs once, and the tracking is over until the app arms it again. Around
    /// that, the journal records, on the channel `withObservationTracking@File.swift:42` of
    /// `owner` (`*` without one):
    /// - each arming as a registration at the call site, for `owner`; its options are
    ///   `prior` (told before the change), or empty when `apply` read no observable
    ///   property: then Observation installs nothing, `onChange` can never run, and the
    ///   registration is removed at once (`tokenReleased`);
    /// - the firing as a change (its value names the property's type: `Model.(Int)`) and
    ///   the delivery of `onChange` (timed, on the writer's thread), then the registration's
    ///   removal `tokenCancelled` (Observation cancels the tracking after calling it);
    /// - every later change of a property the arming read, as a change nobody is told of,
    ///   until the same owner arms the same site again (the tracking's successor follows
    ///   from there) or the owner is deallocated: the changes code that forgets to re-arm
    ///   misses ("only the first change fires").
    ///
    /// Without a sink it is Observation's own function, unrecorded.
    /// - Parameters:
    ///   - owner: whom the tracking is for (a view, a view model), held weakly; its arms from
    ///     one site are one tracking re-armed. `nil`: arms from one site are one tracking.
    ///   - file: the call site, for the journal; leave the default.
    ///   - line: the call site, for the journal; leave the default.
    ///   - function: the call site, for the journal; leave the default.
    ///   - apply: reads the observable properties to track, as Observation's `apply`.
    ///   - onChange: called once, before the first change of a property `apply` read.
    /// - Returns: what `apply` returned.
    @discardableResult
    public func withObservationTracking<T>(
        owner: AnyObject? = nil, file: String = #fileID, line: Int = #line, function: String = #function,
        _ apply: () -> T, onChange: @escaping @Sendable () -> Void
    ) -> T {
        guard hasSink else { return Observation.withObservationTracking(apply, onChange: onChange) }
        let callSite = CallSite(file: file, line: line, function: function)
        let channel = self.channel(
            subject: owner, key: "withObservationTracking@\(file.split(separator: "/").last ?? Substring(file)):\(line)",
            policy: .multicast, payload: ObservationArm.Firing.self
        )
        let arm = ObservationArm(registry: self, channel: channel, owner: owner, onChange: onChange)
        arm.site = trackingSite(owner: owner, callSite: callSite, arm: arm)
        // Observation keeps the `willSet` closure (and the sentinel it holds) only if
        // `apply` read an observable property: whether the sentinel outlives the call says
        // whether anything was read, with no access to Observation's access list.
        var sentinel: ObservationArm.Sentinel? = ObservationArm.Sentinel()
        weak let installed = sentinel
        let result = Observation.withObservationTracking(apply, willSet: { [sentinel, arm] tracking in
            withExtendedLifetime(sentinel) { arm.willSet(tracking) }
        })
        sentinel = nil
        arm.armed(readSomething: installed != nil, callSite: callSite)
        return result
    }

    /// The tracking site of `owner` at `callSite`, now armed by `arm` (its earlier arms retire).
    private func trackingSite(owner: AnyObject?, callSite: CallSite, arm: ObservationArm) -> ObservationArm.Site {
        let ownerID = owner.map { object in state.withLock { $0.identities.ref(for: object).id } } ?? 0
        let key = ObservationArm.SiteKey(owner: ownerID, callSite: callSite)
        return trackingSites.withLock { sites in
            if sites.count >= 64 && sites.count.isMultiple(of: 64) {
                // Sites of owners that are gone track nothing more.
                sites = sites.filter { !$0.value.isAbandoned }
            }
            let site = sites[key] ?? ObservationArm.Site(owner: owner)
            sites[key] = site
            site.latest = ObjectIdentifier(arm)
            return site
        }
    }
}
