import ObserverCore

/// A travel-booking app returns to its login screen when the server session expires.
///
/// Buggy (the stringly-typed notification name report): the router observes
/// `SessionDidExpier`, the API client posts `SessionDidExpire`, so the user stays on a
/// screen whose every request fails. Correct: one shared name constant.
enum SessionExpiryTypoApp {
    static let app = FieldApp(
        name: "session-expiry-typo",
        summary: "a travel-booking app's router returns to login when the API client reports an expired session",
        bug: "the router observes the misspelled notification SessionDidExpier",
        fix: "one shared notification name constant",
        expectedCodes: ["OJ005"],
        story: story
    )

    static let sessionDidExpire = "SessionDidExpire"

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let client = APIClient(registry: registry)
        var router: AppRouter? = AppRouter()
        script.ui { router?.start(registry: registry, variant: variant) }
        script.ui { client.responseReceived(status: 200) }
        script.ui { client.responseReceived(status: 401) }
        script.ui { router = nil }
    }

    final class APIClient {
        let registry: ObserverRegistry
        init(registry: ObserverRegistry) { self.registry = registry }
        func responseReceived(status: Int) {
            guard status == 401 else { return }
            registry.post(notification: SessionExpiryTypoApp.sessionDidExpire, sender: self)
        }
    }

    final class AppRouter {
        private var observation: ObservationToken?
        private(set) var showsLogin = false

        func start(registry: ObserverRegistry, variant: FieldVariant) {
            let name = variant == .buggy ? "SessionDidExpier" : SessionExpiryTypoApp.sessionDidExpire
            observation = registry.observe(notification: name, owner: self) { router, _ in  // [site:expiry]
                router.showsLogin = true
            }
        }
    }
}
