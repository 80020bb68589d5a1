import Foundation
import Observation
import ObserverCore

/// A shop's tab bar shows a badge with the number of items in the `@Observable` cart,
/// followed with Swift Observation's `withObservationTracking`.
///
/// Buggy (the "my badge never updates" report): the badge counts the items before
/// tracking and tracks the count it captured, so `apply` reads no observable property and
/// no added item updates the badge. Correct: `apply` reads the cart, and `onChange` arms
/// the tracking again on the main queue.
enum CartBadgeTrackingApp {
    static let app = FieldApp(
        name: "cart-badge-tracking",
        summary: "a shop's tab-bar badge follows an @Observable cart with withObservationTracking",
        bug: "the count is read before the tracking: apply reads nothing",
        fix: "apply reads the cart; onChange arms the tracking again on the main queue",
        expectedCodes: ["OJ015"],
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
            let captured = cart.items.count     // read before the tracking: what the bug tracks
            registry.withObservationTracking(owner: self) {  // [site:cart-badge-track]
                let count = variant == .correct ? cart.items.count : captured
                text = count == 0 ? "" : "\(count)"
            } onChange: { [weak self] in
                DispatchQueue.main.async { self?.observe() }
            }
        }
    }
}
