import Foundation
import ObservationJournal
import ObserverCore

/// `RegistryBenchmark --notification-center`: the cost of `RecordingNotificationCenter`
/// against the plain `NotificationCenter` it forwards to, at fan-out 1 / 10 / 100, block
/// observers, one `userInfo` entry. Contenders: (a) `NotificationCenter`; (b) the recording
/// center on a registry without a sink (the forwarding alone); (c) the recording center
/// recording into a journal session (every post and delivery written to SQLite; `close()`
/// is inside the timing, so the figure includes committing everything).
enum RecordingCenter {
    static func run() throws {
        let directory = NSTemporaryDirectory() + "RegistryBenchmark-\(ProcessInfo.processInfo.processIdentifier)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        print("## RecordingNotificationCenter: deliveries per second (interleaved, best of 5 rounds)")
        print("| fan-out | NotificationCenter | recording, no sink | recording into a journal | no sink / plain | journal / plain |")
        print("|---:|---:|---:|---:|---:|---:|")
        var run = 0
        for fanOut in [1, 10, 100] {
            let posts = FanOut.posts(for: fanOut, perDelivery: 80)
            var best = [0.0, 0.0, 0.0]
            for _ in 0..<5 {
                for contender in 0..<3 {
                    run += 1
                    let seconds = try measure(contender, fanOut: fanOut, posts: posts, path: "\(directory)/\(run).sqlite")
                    best[contender] = max(best[contender], Double(posts * fanOut) / seconds)
                }
            }
            print("| \(fanOut) | \(millions(best[0])) | \(millions(best[1])) | \(millions(best[2])) | \(ratio(best[1] / best[0])) | \(ratio(best[2] / best[0])) |")
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
        let center = RecordingNotificationCenter(registry: recording?.registry ?? ObserverRegistry())
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
