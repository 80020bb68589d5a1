/// Swift Observation's `withObservationTracking`, as the recorder journals it
/// (`ObserverRegistry.withObservationTracking`): each tracking site is a channel keyed
/// `withObservationTracking@File.swift:42` (of its owner, or `*`), each arming a
/// registration (options `prior`; none when `apply` read nothing), each firing a change
/// delivered once and followed by the arming's removal (`tokenCancelled`). Journals of
/// 0.2.0 also hold each later change of what the arming read, a change nobody is told of;
/// later recorders, on Observation's public API, cannot hear those.
enum TrackingSite {
    /// The prefix of a tracking site's channel key.
    static let keyPrefix = "withObservationTracking@"
    /// The prefix of the channel key of a recorded `Observations` loop
    /// (`ObserverRegistry.observations`): `Observations@File.swift:42`.
    static let observationsKeyPrefix = "Observations@"

    /// Whether `channel` is a tracking site.
    static func isTracking(_ channel: Int64?, _ context: DiagnosisContext) -> Bool {
        guard let channel, context.hasTrackingSites, let key = context.catalog.channels[channel]?.key else { return false }
        return key.hasPrefix(keyPrefix)
    }

    /// How findings name the site: `ScoreView#2's withObservationTracking at ScoreView.swift:20`.
    static func name(owner: Int64?, site: Int64?, _ context: DiagnosisContext) -> String {
        let type = owner.flatMap { context.catalog.objects[$0]?.type }
        let whose = type == nil || type == "ObservationArm" ? "" : "\(context.owner(owner))'s "
        return "\(whose)withObservationTracking at \(context.site(site))"
    }

    /// The fix of a tracking that stopped hearing changes.
    static let rearmFix = "Arm the tracking again after each change: from onChange, enqueue the call that tracks again on the thread or actor that owns the state (Task { @MainActor in self.observe() }), so apply runs after the write and reads the new value; or follow every change with Observations { … } in a for await loop."
}
