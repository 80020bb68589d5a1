/// A large journal with a realistic mix, the same every run (fixed seed): 220 channels
/// (10% single-slot, 20 notifications), owners that come and go (removed by token,
/// deallocated with or without automatic removal), scopes, posts with nested changes,
/// off-main and slow deliveries. Used by the obsreplay benchmark and by the report's size
/// tests and browser check.
package enum SyntheticWorkload {
    /// Writes a journal at `path` (replacing any file) with one session of at least
    /// `events` events.
    package static func write(to path: String, events: Int) throws {
        let fixture = try JournalFixture(path: path, wal: true)
        let s = try fixture.session(label: "benchmark", process: "BenchApp")
        var random = SplitMix64(state: 42)
        let subjectTypes = ["Player", "Uploader", "ScrollView", "Toolbar", "Downloader", "Session", "Settings", "Library"]
        let keys = ["isPlaying", "rate", "volume", "progress", "contentOffset", "isVisible", "title", "state", "count", "error"]
        let ownerTypes = ["VideoScreen", "FloatingWindow", "ListScreen", "ProgressBar", "Label", "Chart", "Toolbar", "Cell", "Badge"]
        var channels: [Int64] = []
        for index in 0..<200 {
            let subject = try s.object(subjectTypes[index % subjectTypes.count])
            channels.append(try s.channel(subject, keys[index % keys.count] + (index % 7 == 0 ? "Changed" : ""), singleSlot: index % 10 == 0))
        }
        for index in 0..<20 { channels.append(try s.channel(0, "Notification\(index)")) }
        var owners: [(id: Int64, registrations: [Int64], scope: Int64?)] = []
        func newOwner() throws {
            let id = try s.object(ownerTypes[random.below(ownerTypes.count)])
            var registrations: [Int64] = []
            let scope: Int64? = random.chance(30) ? try s.beginScope("Screen \(id) visible") : nil
            for _ in 0..<(1 + random.below(4)) {
                let channel = channels[random.below(channels.count)]
                registrations.append(try s.register(
                    channel, owner: id, at: "\(ownerTypes[Int(id) % ownerTypes.count]).swift:\(10 + random.below(200))",
                    options: random.chance(20) ? "new,onlyWhenChanged" : "new", expectsMain: random.chance(40), scope: scope
                ))
            }
            owners.append((id, registrations, scope))
        }
        for _ in 0..<300 { try newOwner() }
        var value = 0
        while s.seq < events {
            switch random.below(100) {
            case 0..<80:  // a post and its deliveries, sometimes nested or on another thread
                let channel = channels[random.below(channels.count)]
                let old = String(value)
                if !random.chance(5) { value += 1 }
                let post = { () throws in
                    _ = try s.post(
                        channel, old: old, new: String(value), at: "Model.swift:\(40 + random.below(60))",
                        duration: random.chance(1) ? 25_000_000 : Int64(50_000 + random.below(400_000))
                    ) { _ in
                        if random.chance(3) { try s.change(channels[random.below(channels.count)], old: "a", new: "b") }
                    }
                }
                if random.chance(5) { try s.inThread(Int64(2 + random.below(4)), post) } else { try post() }
            case 80..<90:  // an owner goes: removed explicitly, by token, or deallocated
                guard !owners.isEmpty else { continue }
                let owner = owners.remove(at: random.below(owners.count))
                if let scope = owner.scope { try s.endScope(scope) }
                switch random.below(3) {
                case 0:
                    for registration in owner.registrations where s.isLive(registration) && random.chance(90) {
                        try s.remove(registration, reason: .tokenReleased)
                    }
                    if random.chance(10) { try s.removeUnregistered(at: "Cleanup.swift:12", owner: owner.id) }
                case 1:
                    try s.deallocate(owner.id)
                default:
                    try s.deallocate(owner.id, autoRemove: false)
                }
            default:
                try newOwner()
            }
            if s.seq % 100_000 < 5, s.seq > 0 { try fixture.commit() }
        }
        try fixture.finish()
    }
}
