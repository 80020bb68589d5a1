import ObserverCore

/// A banking app's login screen and its full-screen "forgot password" modal each move
/// their text fields above the keyboard; the keyboard monitor reports through one
/// delegate-style callback.
///
/// Buggy (the delegate report: "after the modal closes my delegate is never called"): both
/// screens take the callback once, in `viewDidLoad`; the modal takes it from the login
/// screen, which stays alive underneath and never gets it back, so after the modal closes
/// the login form is hidden behind the keyboard. Correct (delegate hand-over): each screen
/// takes the callback in `viewWillAppear`, for the scope of being visible, which ends in
/// `viewWillDisappear`; the login screen takes it back when it reappears. Each screen
/// cancels its assignment in `viewDidDisappear`, after the next screen has taken over.
enum KeyboardHandOverApp {
    static let app = FieldApp(
        name: "keyboard-hand-over",
        summary: "a login screen and its forgot-password modal both follow the keyboard through one delegate-style callback",
        bug: "both screens take the callback once in viewDidLoad; the login screen never gets it back after the modal closes",
        fix: "each screen takes the callback in viewWillAppear for the scope of being visible",
        expectedCodes: ["OJ001"],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let keyboard = KeyboardMonitor(registry: registry)
        var login: LoginScreen? = LoginScreen(keyboard: keyboard, variant: variant)
        var modal: ForgotPasswordScreen?
        script.ui {
            login?.viewDidLoad()
            login?.viewWillAppear()
        }
        script.ui { keyboard.frameChanged(height: 291) }  // the user taps the e-mail field
        script.ui {
            // "Forgot password?" presents the modal full screen.
            modal = ForgotPasswordScreen(keyboard: keyboard, variant: variant)
            login?.viewWillDisappear()
            modal?.viewDidLoad()
            modal?.viewWillAppear()
            login?.viewDidDisappear()
        }
        script.ui { keyboard.frameChanged(height: 0) }
        script.ui { keyboard.frameChanged(height: 291) }
        script.ui {
            // The modal is dismissed and released.
            modal?.viewWillDisappear()
            login?.viewWillAppear()
            modal?.viewDidDisappear()
            modal = nil
        }
        script.ui { keyboard.frameChanged(height: 0) }
        script.ui { keyboard.frameChanged(height: 335) }  // the password field, with suggestions
        script.ui {
            login?.viewWillDisappear()
            login?.viewDidDisappear()
            login = nil
        }
    }

    final class KeyboardMonitor {
        let registry: ObserverRegistry
        lazy var onFrameChange = CallbackProperty<Int>(subject: self, key: "onFrameChange", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }
        func frameChanged(height: Int) { onFrameChange.call(height) }
    }

    /// What both screens do with the keyboard; only where they take the callback differs.
    class KeyboardAvoidingScreen {
        let keyboard: KeyboardMonitor
        let variant: FieldVariant
        private(set) var bottomInset = 0
        private var visible: ObservationScope?
        private var keyboardAssignment: ObservationToken?

        init(keyboard: KeyboardMonitor, variant: FieldVariant) {
            self.keyboard = keyboard
            self.variant = variant
        }

        var visibleScopeName: String { "\(type(of: self)) visible" }

        func viewDidLoad() {
            guard variant == .buggy else { return }
            keyboard.onFrameChange.assign(owner: self) { screen, height in  // [site:keyboard-load]
                screen.bottomInset = height
            }
        }

        func viewWillAppear() {
            guard variant == .correct else { return }
            let visible = keyboard.registry.beginScope(visibleScopeName)
            self.visible = visible
            keyboardAssignment = keyboard.onFrameChange.assign(owner: self, scope: visible) { screen, height in  // [site:keyboard-appear]
                screen.bottomInset = height
            }
        }

        func viewWillDisappear() {
            visible?.end()
            visible = nil
        }

        /// Gives the callback back. By then the next screen has usually taken it already
        /// (its `viewWillAppear` runs first): cancelling a replaced assignment does nothing.
        func viewDidDisappear() {
            keyboardAssignment?.cancel()
            keyboardAssignment = nil
        }
    }

    final class LoginScreen: KeyboardAvoidingScreen {}
    final class ForgotPasswordScreen: KeyboardAvoidingScreen {}
}
