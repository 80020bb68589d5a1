import ObserverCore

/// An app coordinator shows an offline banner and pauses syncing when the network goes.
///
/// Buggy (the "my callback stopped firing" report behind seed 004's demo): the coordinator
/// assigns the reachability monitor's single `onStatusChange` callback in `start()` for the
/// banner, then again in `startSync()` for the sync engine: the second assignment silently
/// replaces the first, and the banner never changes again. Correct: one assignment, made
/// from one place, that updates both; running `start()` again re-assigns from the same
/// place, which replaces nothing that was wanted.
enum ReachabilityReassignApp {
    static let app = FieldApp(
        name: "reachability-reassign",
        summary: "an app coordinator's offline banner and sync engine follow network reachability",
        bug: "the coordinator assigns the single onStatusChange callback twice, from start() and startSync(): the banner's callback never runs again",
        fix: "one assignment that updates both, re-run from the same place when the coordinator restarts",
        expectedCodes: ["OJ001"],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let monitor = ReachabilityMonitor(registry: registry)
        var coordinator: AppCoordinator? = AppCoordinator(variant: variant)
        script.ui { coordinator?.start(monitor: monitor) }
        script.ui { coordinator?.startSync(monitor: monitor) }
        script.ui { monitor.report(.offline) }
        script.ui { monitor.report(.wifi) }
        script.ui { coordinator?.start(monitor: monitor) }  // the user logs out and in again
        script.ui { monitor.report(.cellular) }
        script.ui { coordinator = nil }
    }

    enum Status: String, Sendable {
        case offline, wifi, cellular
    }

    final class ReachabilityMonitor {
        let registry: ObserverRegistry
        lazy var onStatusChange = CallbackProperty<Status>(subject: self, key: "onStatusChange", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }
        func report(_ status: Status) { onStatusChange.call(status) }
    }

    final class AppCoordinator {
        private let variant: FieldVariant
        private(set) var showsOfflineBanner = false
        private(set) var syncPaused = false

        init(variant: FieldVariant) { self.variant = variant }

        func start(monitor: ReachabilityMonitor) {
            switch variant {
            case .buggy:
                monitor.onStatusChange.assign(owner: self) { coordinator, status in  // [site:banner]
                    coordinator.showsOfflineBanner = status == .offline
                }
            case .correct:
                monitor.onStatusChange.assign(owner: self) { coordinator, status in  // [site:both]
                    coordinator.showsOfflineBanner = status == .offline
                    coordinator.syncPaused = status == .offline
                }
            }
        }

        func startSync(monitor: ReachabilityMonitor) {
            guard variant == .buggy else { return }
            monitor.onStatusChange.assign(owner: self) { coordinator, status in  // [site:sync]
                coordinator.syncPaused = status == .offline
            }
        }
    }
}
