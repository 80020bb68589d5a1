import ObserverCore

/// A notes app re-themes its note list when the user switches to dark mode.
///
/// Buggy (the "switching theme stutters" report): the list's theme callback re-renders
/// every note's attributed text synchronously on the main thread. Correct: the callback
/// only marks the list for re-theming and the work happens lazily, per visible cell.
enum ThemeRenderApp {
    static let app = FieldApp(
        name: "theme-render",
        summary: "a notes app's list re-themes itself when the appearance changes",
        bug: "the theme callback re-renders every note synchronously on the main thread",
        fix: "the callback only marks the list as needing a re-theme",
        expectedCodes: ["OJ010"],
        mainLoops: [.runLoop, .dispatchMain],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let appearance = Appearance(registry: registry)
        var list: NoteList? = NoteList(variant: variant)
        script.ui { list?.viewDidLoad(appearance: appearance) }
        script.ui { appearance.style.set("dark") }
        script.ui { appearance.style.set("light") }
        script.ui { list = nil }
    }

    final class Appearance {
        let registry: ObserverRegistry
        lazy var style = ObservableValue("light", subject: self, key: "style", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }
    }

    final class NoteList {
        private let variant: FieldVariant
        private var observation: ObservationToken?
        private(set) var needsRetheme = false

        init(variant: FieldVariant) { self.variant = variant }

        func viewDidLoad(appearance: Appearance) {
            observation = appearance.style.observe(owner: self, options: [.new], expectsMainThread: true) { list, _ in  // [site:theme]
                list.themeChanged()
            }
        }

        private func themeChanged() {
            if variant == .buggy {
                Workload.burnCPU(milliseconds: 40)  // re-render 2,000 notes' attributed text
            } else {
                needsRetheme = true
            }
        }
    }
}
