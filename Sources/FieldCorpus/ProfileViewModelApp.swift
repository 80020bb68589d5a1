import ObserverCore

/// A profile screen whose view model is kept in a cache for fast back navigation.
///
/// Buggy (the "I remove my observer in deinit" report): the view model observes avatar
/// changes and removes its observer in `deinit`, but the cache keeps the view model alive
/// long after its screen has gone, so it keeps re-downloading avatars for a screen nobody
/// sees. Correct: the screen starts and stops the view model's observation when it appears
/// and disappears; `deinit` removes nothing.
enum ProfileViewModelApp {
    static let app = FieldApp(
        name: "profile-view-model",
        summary: "a profile screen whose cached view model follows the account's avatar",
        bug: "the view model removes its avatar observer only in deinit, but the cache keeps it alive after the screen is gone",
        fix: "the screen stops the view model's observation when it disappears",
        expectedCodes: ["OJ004"],
        story: story
    )

    static let avatarDidChange = "AccountAvatarDidChange"

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let account = Account(registry: registry)
        let cache = ViewModelCache()
        var screen: ProfileScreen? = ProfileScreen(registry: registry, cache: cache, variant: variant)
        script.ui { screen?.viewWillAppear() }
        script.ui { account.changeAvatar("beach.jpg") }
        script.ui { screen?.viewDidDisappear() }
        script.ui { screen = nil }  // popped; its view model stays in the cache
        script.ui { account.changeAvatar("mountain.jpg") }
        script.ui { account.changeAvatar("city.jpg") }
        script.ui { cache.removeAll() }  // memory warning
    }

    final class Account {
        let registry: ObserverRegistry
        init(registry: ObserverRegistry) { self.registry = registry }
        func changeAvatar(_ name: String) {
            registry.post(notification: ProfileViewModelApp.avatarDidChange, sender: self, payload: name)
        }
    }

    final class ViewModelCache {
        var models: [String: ProfileViewModel] = [:]
        func removeAll() { models = [:] }
    }

    final class ProfileViewModel {
        let registry: ObserverRegistry
        private let variant: FieldVariant
        private var avatarObservation: ObservationToken?
        private(set) var downloads = 0

        init(registry: ObserverRegistry, variant: FieldVariant) {
            self.registry = registry
            self.variant = variant
        }

        func startObservingAvatar(scope: ObservationScope) {
            guard avatarObservation == nil else { return }
            avatarObservation = registry.observe(  // [site:avatar]
                notification: ProfileViewModelApp.avatarDidChange, owner: self, scope: scope
            ) { model, _ in
                model.downloads += 1
            }
        }

        func stopObservingAvatar() {
            avatarObservation?.cancel()
            avatarObservation = nil
        }

        deinit {
            if variant == .buggy { avatarObservation?.cancel() }
        }
    }

    final class ProfileScreen {
        let registry: ObserverRegistry
        private let cache: ViewModelCache
        private let variant: FieldVariant
        private var visible: ObservationScope?

        init(registry: ObserverRegistry, cache: ViewModelCache, variant: FieldVariant) {
            self.registry = registry
            self.cache = cache
            self.variant = variant
        }

        var viewModel: ProfileViewModel {
            if let model = cache.models["me"] { return model }
            let model = ProfileViewModel(registry: registry, variant: variant)
            cache.models["me"] = model
            return model
        }

        func viewWillAppear() {
            let visible = registry.beginScope("ProfileScreen visible")
            self.visible = visible
            viewModel.startObservingAvatar(scope: visible)
        }

        func viewDidDisappear() {
            if variant == .correct { viewModel.stopObservingAvatar() }
            visible?.end()
            visible = nil
        }
    }
}
