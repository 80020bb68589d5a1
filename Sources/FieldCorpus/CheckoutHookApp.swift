import ObserverCore

/// A shop's checkout screen logs an analytics event when the shared payment sheet's pay
/// button is tapped.
///
/// Buggy (seed 000's shape: a hook installed for one screen that outlives it): the
/// checkout screen hooks the payment sheet's `didTapPay` for as long as it is visible, but
/// never removes the hook when it disappears; the gift-card screen, which uses the same
/// sheet later, fires the checkout's analytics too. Correct: the hook is removed when the
/// screen disappears.
enum CheckoutHookApp {
    static let app = FieldApp(
        name: "checkout-pay-hook",
        summary: "a shop's checkout screen logs analytics when the shared payment sheet's pay button is tapped",
        bug: "the checkout's hook on didTapPay outlives the checkout screen and fires for the gift-card screen's payments",
        fix: "the hook is cancelled when the checkout screen disappears",
        expectedCodes: ["OJ004"],
        story: story
    )

    static let didTapPay = "PaymentSheetDidTapPay"

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let sheet = PaymentSheet(registry: registry)
        let checkout = CheckoutScreen(registry: registry, variant: variant)
        script.ui { checkout.viewDidAppear(sheet: sheet) }
        script.ui { sheet.tapPay(amount: 4_990) }
        script.ui { checkout.viewDidDisappear() }
        script.ui { sheet.tapPay(amount: 2_500) }  // from the gift-card screen
        script.ui { sheet.tapPay(amount: 1_000) }
    }

    /// The payment sheet, shared by every screen that takes payments.
    final class PaymentSheet {
        let registry: ObserverRegistry
        init(registry: ObserverRegistry) { self.registry = registry }
        func tapPay(amount: Int) {
            registry.post(notification: CheckoutHookApp.didTapPay, sender: self, payload: amount)
        }
    }

    final class CheckoutScreen {
        let registry: ObserverRegistry
        private let variant: FieldVariant
        private var visible: ObservationScope?
        private var payHook: ObservationToken?
        private(set) var loggedPurchases: [Int] = []

        init(registry: ObserverRegistry, variant: FieldVariant) {
            self.registry = registry
            self.variant = variant
        }

        func viewDidAppear(sheet: PaymentSheet) {
            let visible = registry.beginScope("CheckoutScreen visible")
            self.visible = visible
            payHook = registry.observe(notification: CheckoutHookApp.didTapPay, sender: sheet, owner: self, scope: visible) { screen, note in  // [site:pay-hook]
                screen.loggedPurchases.append(note.payload as? Int ?? 0)
            }
        }

        func viewDidDisappear() {
            if variant == .correct {
                payHook?.cancel()
                payHook = nil
            }
            visible?.end()
            visible = nil
        }
    }
}
