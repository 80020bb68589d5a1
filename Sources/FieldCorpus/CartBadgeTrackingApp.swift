import Foundation
import Observation
import ObserverCore

/// A shop's tab bar shows a badge with the number of items in the `@Observable` cart,
/// followed with Swift Observation's `withObservationTracking`.
///
/// Buggy (the "my view only updated once" report): the badge tracks the cart once and its
/// `onChange` schedules a redraw but never tracks again, so only the first added item
/// updates the badge. Correct: `onChange` arms the tracking again on the main queue.
enum CartBadgeTrackingApp {
    static let app = FieldApp(
        name: "cart-badge-tracking",
        summary: "a shop's tab-bar badge follows an @Observable cart with withObservationTracking",
        bug: "onChange redraws but never arms the tracking again",
        fix: "onChange arms the tracking again on the main queue",
        expectedCodes: ["OJ014"],
        mainLoops: [.runLoop, .dispatchMain],
        story: story
    )

    @Observable
    final class Cart: @unchecked Sendable {
        var items: [String] = []
    }

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let cart = Cart()
        let badge = CartBadge(registry: registry, cart: cart, variant: variant)
        script.ui { badge.observe() }
        for item in ["mug", "tea", "kettle"] {
            script.ui { cart.items.append(item) }
        }
    }

    final class CartBadge: @unchecked Sendable {
        private let registry: ObserverRegistry
        private let cart: Cart
        private let variant: FieldVariant
        private(set) var text = ""

        init(registry: ObserverRegistry, cart: Cart, variant: FieldVariant) {
            self.registry = registry
            self.cart = cart
            self.variant = variant
        }

        func observe() {
            registry.withObservationTracking(owner: self) {  // [site:cart-badge-track]
                text = cart.items.isEmpty ? "" : "\(cart.items.count)"
            } onChange: { [weak self, variant] in
                DispatchQueue.main.async {
                    guard let self else { return }
                    if variant == .correct { self.observe() } else { self.text += "•" }
                }
            }
        }
    }
}
