import ObserverCore

/// A banking app shows an "offline" toast while the connection is down; a toast center
/// keeps the toasts' tokens and cancels them all on logout.
///
/// Buggy (the "removing twice" report): the toast center cancels a toast's token when it
/// hides it, and cancels every token it ever held again on logout. Correct: the center
/// cancels each token once, on logout, even if the toast (the owner) has already gone and
/// the registry already removed its registration on its own: cancelling such a token is
/// not a bug.
enum ToastTokenApp {
    static let app = FieldApp(
        name: "toast-tokens",
        summary: "a banking app's toast center keeps the offline toasts' tokens and cancels them on logout",
        bug: "the center cancels a toast's token when hiding it and again on logout",
        fix: "each token is cancelled once, on logout, after the toasts' owners are gone",
        expectedCodes: ["OJ003"],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let connection = Connection(registry: registry)
        let center = ToastCenter(variant: variant)
        script.ui { center.show(OfflineToast(), following: connection) }
        script.ui { connection.isOnline.set(false) }
        script.ui { center.hideAll() }  // the toast slides out and is released
        script.ui { connection.isOnline.set(true) }  // nobody left: the registry sweeps it
        script.ui { center.show(OfflineToast(), following: connection) }
        script.ui { center.hideAll() }  // released, and no change comes before logout
        script.ui { center.logout() }
    }

    final class Connection {
        let registry: ObserverRegistry
        lazy var isOnline = ObservableValue(true, subject: self, key: "isOnline", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }
    }

    final class OfflineToast {
        private(set) var visible = false
        func update(online: Bool) { visible = !online }
    }

    final class ToastCenter {
        private let variant: FieldVariant
        private var shown: [(toast: OfflineToast, token: ObservationToken)] = []
        private var tokens: [ObservationToken] = []

        init(variant: FieldVariant) { self.variant = variant }

        func show(_ toast: OfflineToast, following connection: Connection) {
            let token = connection.isOnline.observe(owner: toast, options: [.new]) { toast, change in  // [site:toast]
                toast.update(online: change.new ?? true)
            }
            shown.append((toast, token))
            tokens.append(token)
        }

        func hideAll() {
            if variant == .buggy {
                for entry in shown { entry.token.cancel() }  // [site:hide-cancel]
            }
            shown = []
        }

        func logout() {
            for token in tokens { token.cancel() }  // [site:logout-cancel]
            tokens = []
        }
    }
}
