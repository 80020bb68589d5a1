import Foundation
import JournalFixtures
import ObservationJournal
import ObserverCore

/// `RegistryBenchmark --notification-center`: the cost of `RecordingNotificationCenter`
/// against the plain `NotificationCenter` it forwards to, at fan-out 1 / 10 / 100, block
/// observers, one `userInfo` entry. Contenders: (a) `NotificationCenter`; (b) the recording
/// center on a registry without a sink (the forwarding alone); (c) the recording center
/// recording into a journal session (every post and delivery written to SQLite; `close()`
/// is inside the timing, so the figure includes committing everything).
enum RecordingCenter {
    static func run(rounds: Int) throws {
        let directory = NSTemporaryDirectory() + "RegistryBenchmark-\(ProcessInfo.processInfo.processIdentifier)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        print("## RecordingNotificationCenter: deliveries per second")
        print("(median of \(rounds) rounds after a warm-up round, contenders back to back in each round; ratios median (min–max))")
        print("")
        print("| fan-out | NotificationCenter | recording, no sink | recording into a journal | no sink / plain | journal / plain |")
        print("|---:|---:|---:|---:|---:|---:|")
        var run = 0
        for fanOut in [1, 10, 100] {
            let posts = FanOut.posts(for: fanOut, perDelivery: 80)
            var rates: [[Double]] = [[], [], []]
            for round in -1..<rounds {  // round -1: warm-up, not recorded
                for offset in 0..<3 {
                    let contender = (max(round, 0) + offset) % 3
                    run += 1
                    let path = "\(directory)/\(run).sqlite"
                    let seconds = try measure(contender, fanOut: fanOut, posts: posts, path: path)
                    try? FileManager.default.removeItem(atPath: path)
                    if round >= 0 { rates[contender].append(Double(posts * fanOut) / seconds) }
                }
            }
            let plain = Spread(rates[0]).median, bare = Spread(rates[1]).median, journal = Spread(rates[2]).median
            print("| \(fanOut) | \(millions(plain)) | \(millions(bare)) | \(millions(journal)) | \(Spread(ratios(rates[1], rates[0])).text(ratio)) | \(Spread(ratios(rates[2], rates[0])).text(ratio)) |")
        }
    }

    /// Seconds for `posts` posts to `fanOut` block observers through contender `which`.
    static func measure(_ which: Int, fanOut: Int, posts: Int, path: String) throws -> Double {
        let name = Notification.Name("value")
        let receivers = (0..<fanOut).map { _ in Receiver() }
        if which == 0 {
            let center = NotificationCenter()
            let observers = receivers.map { receiver in
                center.addObserver(forName: name, object: nil, queue: nil) { note in
                    receiver.total &+= note.userInfo!["new"] as! Int
                }
            }
            let seconds = Measurement.seconds {
                for post in 0..<posts { center.post(name: name, object: nil, userInfo: ["new": post]) }
            }
            for observer in observers { center.removeObserver(observer) }
            keep(receivers.reduce(0) { $0 &+ $1.total })
            return seconds
        }
        let recording = which == 2 ? try Journal.open(path: path).startSession(label: "benchmark") : nil
        let center = RecordingNotificationCenter(registry: recording?.registry ?? ObserverRegistry(), forwardingTo: NotificationCenter())
        let observers = receivers.map { receiver in
            center.addObserver(forName: name, object: nil, queue: nil) { note in
                receiver.total &+= note.userInfo!["new"] as! Int
            }
        }
        let seconds = Measurement.seconds {
            for post in 0..<posts { center.post(name: name, object: nil, userInfo: ["new": post]) }
            recording?.close()
        }
        for observer in observers { center.removeObserver(observer) }
        keep(receivers.reduce(0) { $0 &+ $1.total })
        return seconds
    }
}
