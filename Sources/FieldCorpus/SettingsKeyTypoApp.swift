import ObserverCore

/// A fitness app's settings screen shows a "reminders on" switch that follows the user's
/// defaults, which are observed by key as with `UserDefaults` key-value observing.
///
/// Buggy (the "KVO on UserDefaults never fires" report): the screen observes
/// `remindersEnabeld`, a typo; the defaults post `remindersEnabled`. Correct: both sides
/// use one shared key constant.
enum SettingsKeyTypoApp {
    static let app = FieldApp(
        name: "settings-key-typo",
        summary: "a fitness app's settings switch follows the reminders default, observed by key",
        bug: "the screen observes the misspelled key remindersEnabeld",
        fix: "one shared key constant",
        expectedCodes: ["OJ005"],
        story: story
    )

    static let remindersKey = "remindersEnabled"

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let defaults = UserSettings(registry: registry)
        var screen: SettingsScreen? = SettingsScreen()
        script.ui { screen?.viewDidLoad(defaults: defaults, variant: variant) }
        script.ui { defaults.set(true, forKey: remindersKey) }  // changed from the watch app
        script.ui { defaults.set(false, forKey: remindersKey) }
        script.ui { screen = nil }
    }

    /// Values looked up by key: observing a key nobody sets is allowed, and never fires.
    final class UserSettings {
        let registry: ObserverRegistry
        private var values: [String: ObservableValue<Bool>] = [:]
        init(registry: ObserverRegistry) { self.registry = registry }

        func value(forKey key: String) -> ObservableValue<Bool> {
            if let value = values[key] { return value }
            let value = ObservableValue(false, subject: self, key: key, registry: registry)
            values[key] = value
            return value
        }

        func set(_ flag: Bool, forKey key: String) { value(forKey: key).set(flag) }
    }

    final class SettingsScreen {
        private var observation: ObservationToken?
        private(set) var switchIsOn = false

        func viewDidLoad(defaults: UserSettings, variant: FieldVariant) {
            let key = variant == .buggy ? "remindersEnabeld" : SettingsKeyTypoApp.remindersKey
            observation = defaults.value(forKey: key).observe(owner: self, options: [.new]) { screen, change in  // [site:reminders]
                screen.switchIsOn = change.new ?? false
            }
        }
    }
}
