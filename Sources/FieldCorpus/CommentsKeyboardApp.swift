import ObserverCore

/// A social app's comments screen lifts its input bar when the keyboard shows.
///
/// Buggy (the "addObserver in viewWillAppear" report): the screen observes
/// `KeyboardWillShow` in `viewWillAppear`, so after the user opens a profile from a
/// comment and comes back, the bar is lifted twice per keyboard. Correct: it cancels its
/// token in `viewWillDisappear`, so each appearance has exactly one observer.
enum CommentsKeyboardApp {
    static let app = FieldApp(
        name: "comments-keyboard",
        summary: "a social app's comments screen lifts its input bar when the keyboard shows",
        bug: "the KeyboardWillShow observer is added in viewWillAppear and never removed",
        fix: "the token is cancelled in viewWillDisappear",
        expectedCodes: ["OJ002"],
        story: story
    )

    static let keyboardWillShow = "KeyboardWillShow"

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let keyboard = SystemKeyboard(registry: registry)
        var screen: CommentsScreen? = CommentsScreen(registry: registry, variant: variant)
        script.ui { screen?.viewWillAppear() }
        script.ui { keyboard.show() }
        script.ui { screen?.viewWillDisappear() }  // a profile is pushed
        script.ui { screen?.viewWillAppear() }     // and popped
        script.ui { keyboard.show() }
        script.ui { screen = nil }
    }

    final class SystemKeyboard {
        let registry: ObserverRegistry
        init(registry: ObserverRegistry) { self.registry = registry }
        func show() { registry.post(notification: CommentsKeyboardApp.keyboardWillShow, sender: self, payload: 301) }
    }

    final class CommentsScreen {
        let registry: ObserverRegistry
        private let variant: FieldVariant
        private var observers: [ObservationToken] = []
        private(set) var lifts = 0

        init(registry: ObserverRegistry, variant: FieldVariant) {
            self.registry = registry
            self.variant = variant
        }

        func viewWillAppear() {
            observers.append(registry.observe(notification: CommentsKeyboardApp.keyboardWillShow, owner: self) { screen, _ in  // [site:keyboard-show]
                screen.lifts += 1
            })
        }

        func viewWillDisappear() {
            guard variant == .correct else { return }
            for token in observers { token.cancel() }
            observers = []
        }
    }
}
