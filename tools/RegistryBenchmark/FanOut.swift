import Foundation
import ObserverCore

/// Deliveries per second when one value change reaches `fanOut` receivers.
struct FanOutResult {
    var fanOut: Int
    var closures: Double
    var registry: Double
    var notificationCenter: Double
}

enum FanOut {
    /// Enough posts for each run to last a few tens of milliseconds.
    static func posts(for fanOut: Int, perDelivery cost: Int) -> Int {
        max(1_000, 4_000_000 / (fanOut * cost))
    }

    /// (a) The physical limit: a plain array of closures called in a loop with old and new.
    static func closures(fanOut: Int) -> Double {
        let receivers = (0..<fanOut).map { _ in Receiver() }
        let callbacks: [(Int, Int) -> Void] = receivers.map { receiver in
            { _, new in receiver.total &+= new }
        }
        let posts = posts(for: fanOut, perDelivery: 1)
        var value = 0
        let rate = Measurement.bestRate(operations: posts * fanOut) {
            for post in 0..<posts {
                let old = value
                value = post
                for callback in callbacks { callback(old, post) }
            }
        }
        keep(receivers.reduce(0) { $0 &+ $1.total })
        return rate
    }

    /// The registry: an `ObservableValue` with `fanOut` owners, no sink.
    static func registry(fanOut: Int, sink: (any EventSink)? = nil, runs: Int = 7, posts explicitPosts: Int? = nil) -> Double {
        let registry = ObserverRegistry(sink: sink)
        let subject = Subject()
        let value = ObservableValue(0, subject: subject, key: "value", registry: registry)
        let owners = (0..<fanOut).map { _ in Receiver() }
        let tokens = owners.map { owner in
            value.observe(owner: owner) { owner, change in owner.total &+= change.new! }
        }
        let posts = explicitPosts ?? posts(for: fanOut, perDelivery: 4)
        let memory = sink as? InMemoryEventSink
        let rate = Measurement.bestRate(runs: runs, operations: posts * fanOut) {
            memory?.removeAll()
            for post in 0..<posts { value.value = post }
        }
        keep(owners.reduce(0) { $0 &+ $1.total })
        withExtendedLifetime((tokens, subject)) {}
        return rate
    }

    /// (b) Foundation's `NotificationCenter`: block observers, old and new in `userInfo`.
    static func notificationCenter(fanOut: Int) -> Double {
        let center = NotificationCenter()
        let name = Notification.Name("value")
        let receivers = (0..<fanOut).map { _ in Receiver() }
        let observers = receivers.map { receiver in
            center.addObserver(forName: name, object: nil, queue: nil) { note in
                receiver.total &+= note.userInfo!["new"] as! Int
            }
        }
        let posts = posts(for: fanOut, perDelivery: 40)
        var value = 0
        let rate = Measurement.bestRate(runs: 5, operations: posts * fanOut) {
            for post in 0..<posts {
                let old = value
                value = post
                center.post(name: name, object: nil, userInfo: ["old": old, "new": post])
            }
        }
        for observer in observers { center.removeObserver(observer) }
        keep(receivers.reduce(0) { $0 &+ $1.total })
        return rate
    }

    static func run(fanOut: Int) -> FanOutResult {
        FanOutResult(
            fanOut: fanOut,
            closures: closures(fanOut: fanOut),
            registry: registry(fanOut: fanOut),
            notificationCenter: notificationCenter(fanOut: fanOut)
        )
    }
}

/// Makes a result observable so the optimiser keeps the work that produced it.
@inline(never)
func keep(_ value: Int) {
    if value == 42 { FileHandle.standardError.write(Data(" ".utf8)) }
}
