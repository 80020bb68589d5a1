import ObserverCore

/// A tip calculator keeps a percentage slider and a percentage text field in sync.
///
/// Buggy (the two-way binding report: "my KVO observers ping-pong"): the slider's
/// observer writes the text, and the text's observer parses it and writes the slider
/// back, rounded to whole percent, so each user change echoes through the other control
/// and changes the slider again from inside its own callback. Correct: programmatic
/// updates are marked, and the observers do not echo them back.
enum TipCalculatorApp {
    static let app = FieldApp(
        name: "tip-calculator-sync",
        summary: "a tip calculator keeps its percentage slider and text field in sync",
        bug: "the slider's observer writes the text and the text's observer writes the slider back: each change echoes",
        fix: "updates made by the sync itself are not echoed back",
        expectedCodes: ["OJ009"],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let form = TipForm(registry: registry)
        var binder: TipBinder? = TipBinder(form: form, echoes: variant == .buggy)
        script.ui { binder?.bind() }
        script.ui { form.slider.set(17.6) }  // the user drags the slider
        script.ui { form.text.set("20") }    // the user types
        script.ui { binder = nil }
    }

    final class TipForm {
        let registry: ObserverRegistry
        lazy var slider = ObservableValue(15.0, subject: self, key: "sliderValue", registry: registry)
        lazy var text = ObservableValue("15", subject: self, key: "text", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }
    }

    final class TipBinder {
        let form: TipForm
        private let echoes: Bool
        private var syncing = false
        private var tokens: [ObservationToken] = []

        init(form: TipForm, echoes: Bool) {
            self.form = form
            self.echoes = echoes
        }

        func bind() {
            tokens.append(form.slider.observe(owner: self, options: [.new, .onlyWhenChanged]) { binder, change in  // [site:slider]
                binder.sync { binder.form.text.set(String(Int((change.new ?? 0).rounded()))) }  // [site:slider-writes-text]
            })
            tokens.append(form.text.observe(owner: self, options: [.new, .onlyWhenChanged]) { binder, change in  // [site:text]
                binder.sync { binder.form.slider.set(Double(change.new ?? "") ?? 0) }  // [site:text-writes-slider]
            })
        }

        /// Runs an update made by the binding itself; the correct binder ignores the echo.
        private func sync(_ update: () -> Void) {
            if syncing && !echoes { return }
            syncing = true
            defer { syncing = false }
            update()
        }
    }
}
