import Foundation
import ObserverCore
import JournalFixtures

/// Time to register `count` observers on one channel and then remove them all, in a
/// shuffled order (the general case: removal by position is what goes quadratic).
struct RegisterRemoveResult {
    var count: Int
    /// Seconds, one value per round.
    var registry: [Double]
    var notificationCenter: [Double]
}

enum RegisterRemove {
    /// A fixed shuffle, so every run and every contender removes in the same order.
    static func order(_ count: Int) -> [Int] {
        var generator = SplitMix64(state: UInt64(count))
        return Array(0..<count).shuffled(using: &generator)
    }

    /// One register-then-remove run of the registry, in seconds.
    static func registry(count: Int) -> Double {
        let order = order(count)
        return Measurement.seconds {
            let registry = ObserverRegistry()
            let subject = Subject()
            let value = ObservableValue(0, subject: subject, key: "value", registry: registry)
            let owners = (0..<count).map { _ in Receiver() }
            var tokens: [ObservationToken?] = owners.map { owner in
                value.observe(owner: owner) { owner, change in owner.total &+= change.new! }
            }
            for index in order { tokens[index]!.cancel() }
            precondition(registry.statistics.registrations == 0)
            withExtendedLifetime((tokens, owners, subject)) {}
            tokens.removeAll()
        }
    }

    /// One register-then-remove run of `NotificationCenter`, in seconds.
    static func notificationCenter(count: Int) -> Double {
        let order = order(count)
        return Measurement.seconds {
            let center = NotificationCenter()
            let name = Notification.Name("value")
            let receivers = (0..<count).map { _ in Receiver() }
            let observers = receivers.map { receiver in
                center.addObserver(forName: name, object: nil, queue: nil) { note in
                    receiver.total &+= note.userInfo!["new"] as! Int
                }
            }
            for index in order { center.removeObserver(observers[index]) }
        }
    }

    /// Every size and both contenders in turn, round after round (so load from other
    /// work falls on all alike), after one untimed warm-up of each.
    static func run(counts: [Int], rounds: Int) -> [RegisterRemoveResult] {
        for count in counts {
            _ = registry(count: count)
            _ = notificationCenter(count: count)
        }
        var results = counts.map { RegisterRemoveResult(count: $0, registry: [], notificationCenter: []) }
        for round in 0..<rounds {
            for index in counts.indices {
                // Alternate which contender goes first.
                if round % 2 == 0 {
                    results[index].registry.append(registry(count: counts[index]))
                    results[index].notificationCenter.append(notificationCenter(count: counts[index]))
                } else {
                    results[index].notificationCenter.append(notificationCenter(count: counts[index]))
                    results[index].registry.append(registry(count: counts[index]))
                }
            }
        }
        return results
    }
}
