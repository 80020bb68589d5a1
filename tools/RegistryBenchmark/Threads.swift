import Foundation
import ObserverCore

/// Posts per second when `threads` threads each post on a channel of their own (a value of
/// its own subject, one receiver): how much threads on different channels serialise inside
/// the registry. On a machine with fewer cores than threads the figure is capped by the
/// cores; compare it with the one-thread figure and the core count, printed beside it.
enum Threads {
    /// A sink that drops every event: the registry's own event work and locking, without
    /// a shared counter that would itself serialise the threads.
    final class DiscardingSink: EventSink {
        func record(_ event: ObserverEvent) {}
    }

    /// The best rate of `rounds` runs of `threads` threads posting `posts` changes each.
    static func rate(threads: Int, posts: Int, sink: (any EventSink)?, rounds: Int = 5) -> Double {
        let registry = ObserverRegistry(sink: sink)
        let subjects = (0..<threads).map { _ in Subject() }
        let values = subjects.map { ObservableValue(0, subject: $0, key: "value", registry: registry) }
        let receivers = (0..<threads).map { _ in Receiver() }
        let tokens = zip(values, receivers).map { value, receiver in
            value.observe(owner: receiver) { owner, change in owner.total &+= change.new! }
        }
        var best = 0.0
        for _ in 0..<rounds {
            let start = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            for index in 0..<threads {
                done.enter()
                let value = values[index]
                let thread = Thread {
                    start.wait()
                    for post in 0..<posts { value.value = post }
                    done.leave()
                }
                thread.start()
            }
            let seconds = Measurement.seconds {
                for _ in 0..<threads { start.signal() }
                done.wait()
            }
            best = max(best, Double(threads * posts) / seconds)
        }
        withExtendedLifetime((tokens, subjects)) {}
        keep(receivers.reduce(0) { $0 &+ $1.total })
        return best
    }

    /// Prints the 1/2/4/8-thread table, without and with a (discarding) sink.
    static func run(posts: Int) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print("## Threads posting on different channels: posts per second (best of 5, \(posts) posts per thread, \(cores) cores)")
        print("")
        print("| threads | no sink | no sink / 1 thread | discarding sink | sink / 1 thread |")
        print("|---:|---:|---:|---:|---:|")
        var first: (Double, Double)?
        for threads in [1, 2, 4, 8] {
            let plain = rate(threads: threads, posts: posts, sink: nil)
            let recorded = rate(threads: threads, posts: posts, sink: DiscardingSink())
            let base = first ?? (plain, recorded)
            first = base
            print("| \(threads) | \(millions(plain)) | \(ratio(plain / base.0)) | \(millions(recorded)) | \(ratio(recorded / base.1)) |")
        }
    }
}
