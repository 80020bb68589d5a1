import ObserverCore

/// A sign-up form scrolls its fields above the keyboard.
///
/// Buggy (the "removeObserver twice" report, the NotificationCenter flavour of seed 002):
/// the form removes its keyboard observer when it leaves the window and again in
/// `deinit`. Correct: it removes it once, when it leaves the window.
enum FormKeyboardApp {
    static let app = FieldApp(
        name: "form-keyboard-remove-twice",
        summary: "a sign-up form scrolls its fields above the keyboard",
        bug: "the form removes its keyboard observer in willMove(toWindow: nil) and again in deinit",
        fix: "one removal, when the form leaves the window",
        expectedCodes: ["OJ003"],
        story: story
    )

    static let keyboardWillChangeFrame = "KeyboardWillChangeFrame"

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let keyboard = Keyboard(registry: registry)
        var form: SignUpForm? = SignUpForm(registry: registry, variant: variant)
        script.ui { form?.didMoveToWindow() }
        script.ui { keyboard.show(height: 291) }
        script.ui { keyboard.show(height: 335) }  // the emoji keyboard
        script.ui { form?.willMove(toWindow: nil) }
        script.ui { form = nil }
    }

    final class Keyboard {
        let registry: ObserverRegistry
        init(registry: ObserverRegistry) { self.registry = registry }
        func show(height: Int) {
            registry.post(notification: FormKeyboardApp.keyboardWillChangeFrame, sender: self, payload: height)
        }
    }

    final class SignUpForm {
        let registry: ObserverRegistry
        private let variant: FieldVariant
        private(set) var bottomInset = 0

        init(registry: ObserverRegistry, variant: FieldVariant) {
            self.registry = registry
            self.variant = variant
        }

        func didMoveToWindow() {
            // The token is kept only so the registration lives; the form removes it by name,
            // NotificationCenter style.
            let token = registry.observe(notification: FormKeyboardApp.keyboardWillChangeFrame, owner: self) { form, note in  // [site:keyboard]
                form.bottomInset = note.payload as? Int ?? 0
            }
            keep(token)
        }

        private var tokens: [ObservationToken] = []
        private func keep(_ token: ObservationToken) { tokens.append(token) }

        func willMove(toWindow window: AnyObject?) {
            guard window == nil else { return }
            registry.removeObservers(notification: FormKeyboardApp.keyboardWillChangeFrame, owner: self)  // [site:remove-window]
        }

        deinit {
            if variant == .buggy {
                registry.removeObservers(notification: FormKeyboardApp.keyboardWillChangeFrame, owner: self)  // [site:remove-deinit]
            }
        }
    }
}
