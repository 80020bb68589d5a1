import Foundation
import ObserverCore

/// Deliveries per second when one value change reaches `fanOut` receivers, one value per
/// round for each contender.
struct FanOutResult {
    var fanOut: Int
    var closures: [Double]
    var registry: [Double]
    var notificationCenter: [Double]
}

/// One contender, set up once and run many times: `run` posts `posts` changes.
struct Contender {
    var posts: Int
    var run: () -> Void
    var checksum: () -> Int
}

enum FanOut {
    /// Enough posts for each run to last a few tens of milliseconds.
    static func posts(for fanOut: Int, perDelivery cost: Int) -> Int {
        max(1_000, 4_000_000 / (fanOut * cost))
    }

    /// (a) The physical limit: a plain array of closures called in a loop with old and new.
    static func closures(fanOut: Int, posts explicitPosts: Int? = nil) -> Contender {
        let receivers = (0..<fanOut).map { _ in Receiver() }
        let callbacks: [(Int, Int) -> Void] = receivers.map { receiver in
            { _, new in receiver.total &+= new }
        }
        let posts = explicitPosts ?? posts(for: fanOut, perDelivery: 1)
        var value = 0
        return Contender(posts: posts, run: {
            for post in 0..<posts {
                let old = value
                value = post
                for callback in callbacks { callback(old, post) }
            }
        }, checksum: { receivers.reduce(0) { $0 &+ $1.total } })
    }

    /// The registry: an `ObservableValue` with `fanOut` owners.
    static func registry(fanOut: Int, sink: (any EventSink)? = nil, posts explicitPosts: Int? = nil) -> Contender {
        let registry = ObserverRegistry(sink: sink)
        let subject = Subject()
        let value = ObservableValue(0, subject: subject, key: "value", registry: registry)
        let owners = (0..<fanOut).map { _ in Receiver() }
        let tokens = owners.map { owner in
            value.observe(owner: owner) { owner, change in owner.total &+= change.new! }
        }
        let posts = explicitPosts ?? posts(for: fanOut, perDelivery: 4)
        let memory = sink as? InMemoryEventSink
        return Contender(posts: posts, run: {
            memory?.removeAll()
            for post in 0..<posts { value.value = post }
        }, checksum: {
            withExtendedLifetime((tokens, subject)) {}
            return owners.reduce(0) { $0 &+ $1.total }
        })
    }

    /// (b) Foundation's `NotificationCenter`: block observers, old and new in `userInfo`.
    static func notificationCenter(fanOut: Int, posts explicitPosts: Int? = nil) -> Contender {
        let center = NotificationCenter()
        let name = Notification.Name("value")
        let receivers = (0..<fanOut).map { _ in Receiver() }
        let observers = receivers.map { receiver in
            center.addObserver(forName: name, object: nil, queue: nil) { note in
                receiver.total &+= note.userInfo!["new"] as! Int
            }
        }
        let posts = explicitPosts ?? posts(for: fanOut, perDelivery: 40)
        var value = 0
        return Contender(posts: posts, run: {
            for post in 0..<posts {
                let old = value
                value = post
                center.post(name: name, object: nil, userInfo: ["old": old, "new": post])
            }
        }, checksum: {
            withExtendedLifetime(observers) {}
            return receivers.reduce(0) { $0 &+ $1.total }
        })
    }

    /// Runs the contenders in turn, round after round, so load from other work on the
    /// machine falls on all of them alike. One untimed warm-up round first (caches, lazy
    /// initialisation, the allocator's first pages); the order rotates every round so no
    /// contender always runs right after the same other one.
    /// - Returns: each contender's rate in deliveries per second, one value per round.
    static func race(_ contenders: [Contender], deliveriesPerPost: Int, rounds: Int) -> [[Double]] {
        for contender in contenders { contender.run() }
        var rates = Array(repeating: [Double](), count: contenders.count)
        for round in 0..<rounds {
            for offset in contenders.indices {
                let index = (round + offset) % contenders.count
                let seconds = Measurement.seconds(contenders[index].run)
                rates[index].append(Double(contenders[index].posts * deliveriesPerPost) / seconds)
            }
        }
        for contender in contenders { keep(contender.checksum()) }
        return rates
    }

    static func run(fanOut: Int, rounds: Int) -> FanOutResult {
        let rates = race(
            [closures(fanOut: fanOut), registry(fanOut: fanOut), notificationCenter(fanOut: fanOut)],
            deliveriesPerPost: fanOut, rounds: rounds
        )
        return FanOutResult(fanOut: fanOut, closures: rates[0], registry: rates[1], notificationCenter: rates[2])
    }
}

/// Makes a result observable so the optimiser keeps the work that produced it.
@inline(never)
func keep(_ value: Int) {
    if value == 42 { FileHandle.standardError.write(Data(" ".utf8)) }
}
