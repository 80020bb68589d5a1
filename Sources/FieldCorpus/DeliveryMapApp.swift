import Dispatch
import ObserverCore

/// A food-delivery app's tracking screen moves the courier's pin as GPS fixes arrive.
///
/// Buggy (the "UI API called on a background thread" report from the Main Thread
/// Checker): the screen declares that its callback needs the main thread but does not ask
/// for the main queue; the courier feed reports fixes on its socket's thread, so the pin
/// is moved off the main thread. Correct: the registration asks for `queue: .main`.
/// Both also follow the position through the app's UI queue (a serial queue targeting the
/// main queue) and the user's "recentre" taps, made on the main queue: those must be clean
/// under either Linux main loop.
enum DeliveryMapApp {
    static let app = FieldApp(
        name: "delivery-map",
        summary: "a food-delivery tracking screen moves the courier's pin on every GPS fix",
        bug: "the pin callback expects the main thread but is called on the courier feed's socket thread",
        fix: "the pin callback asks to be delivered on the main queue",
        expectedCodes: ["OJ008"],
        mainLoops: [.runLoop, .dispatchMain],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let feed = CourierFeed(registry: registry)
        var screen: TrackingScreen? = TrackingScreen()
        script.ui { screen?.viewDidLoad(feed: feed, variant: variant) }
        for step in 1...3 {
            script.background { [position = feed.position] in
                CourierFeed.socketReceived(position, Pin(x: step, y: step * 2))
            }
        }
        script.ui { feed.recentre.set(true) }
        script.background { [position = feed.position] in
            CourierFeed.socketReceived(position, Pin(x: 4, y: 9))
        }
        script.ui { screen = nil }
    }

    struct Pin: Sendable, Equatable, CustomStringConvertible {
        var x: Int
        var y: Int
        var description: String { "(\(x), \(y))" }
    }

    final class CourierFeed {
        let registry: ObserverRegistry
        lazy var position = ObservableValue(Pin(x: 0, y: 0), subject: self, key: "position", registry: registry)
        lazy var recentre = ObservableValue(false, subject: self, key: "recentreRequested", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }

        /// Called on the feed's socket thread.
        static func socketReceived(_ position: ObservableValue<Pin>, _ pin: Pin) {
            position.set(pin)
        }
    }

    final class TrackingScreen {
        private var tokens: [ObservationToken] = []
        private(set) var pin: Pin?
        private(set) var recentred = 0
        private(set) var etaMinutes = 20
        private let uiQueue = DispatchQueue(label: "FoodDelivery.ui", target: .main)

        func viewDidLoad(feed: CourierFeed, variant: FieldVariant) {
            if variant == .buggy {
                tokens.append(feed.position.observe(owner: self, options: [.new], expectsMainThread: true) { screen, change in  // [site:pin]
                    screen.pin = change.new
                })
            } else {
                tokens.append(feed.position.observe(owner: self, options: [.new], queue: .main) { screen, change in  // [site:pin-main]
                    screen.pin = change.new
                })
            }
            // The ETA label updates through the app's UI queue, a serial queue that targets
            // the main queue: its blocks run as main-queue work.
            tokens.append(feed.position.observe(owner: self, options: [.new], queue: uiQueue, expectsMainThread: true) { screen, change in  // [site:eta]
                screen.etaMinutes = max(0, 20 - (change.new?.x ?? 0) * 5)
            })
            tokens.append(feed.recentre.observe(owner: self, options: [.new], expectsMainThread: true) { screen, _ in  // [site:recentre]
                screen.recentred += 1
            })
        }
    }
}
