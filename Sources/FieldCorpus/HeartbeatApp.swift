import ObserverCore

/// A ride-hailing driver app shows an online indicator fed by a server heartbeat.
///
/// Buggy (the "KVO fires even though the value did not change" report): every heartbeat
/// sets `isOnline` to true again, and the indicator, observing without
/// `.onlyWhenChanged`, re-renders each time. Correct: the indicator observes with
/// `.onlyWhenChanged`.
enum HeartbeatApp {
    static let app = FieldApp(
        name: "driver-heartbeat",
        summary: "a ride-hailing driver app's online indicator follows a server heartbeat",
        bug: "every heartbeat sets isOnline to the same value and the indicator re-renders each time",
        fix: "the indicator observes with .onlyWhenChanged",
        expectedCodes: ["OJ007"],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let presence = DriverPresence(registry: registry)
        var indicator: OnlineIndicator? = OnlineIndicator()
        script.ui { indicator?.bind(presence: presence, onlyWhenChanged: variant == .correct) }
        for _ in 0..<4 { script.ui { presence.heartbeat(ok: true) } }
        script.ui { presence.heartbeat(ok: false) }
        script.ui { indicator = nil }
    }

    final class DriverPresence {
        let registry: ObserverRegistry
        lazy var isOnline = ObservableValue(false, subject: self, key: "isOnline", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }
        func heartbeat(ok: Bool) { isOnline.set(ok) }  // [site:heartbeat]
    }

    final class OnlineIndicator {
        private var observation: ObservationToken?
        private(set) var renders = 0

        func bind(presence: DriverPresence, onlyWhenChanged: Bool) {
            let options: ObservationOptions = onlyWhenChanged ? [.new, .onlyWhenChanged] : [.new]
            observation = presence.isOnline.observe(owner: self, options: options) { indicator, _ in
                indicator.renders += 1
            }
        }
    }
}
