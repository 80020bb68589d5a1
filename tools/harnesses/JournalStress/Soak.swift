import Foundation
import JournalFixtures
import JournalAnalysis
import ObservationJournal
import ObserverCore
import Synchronization

/// The soak harness: threads registering, posting and removing against one recorded
/// registry for a while; then the journal's counts must equal the workload's own
/// counters exactly, memory must have stayed flat, and `diagnose` must find only what
/// the workload did on purpose.
struct Soak {
    struct Settings {
        var seconds = 60.0
        var threads = 8
        var journal: String?
        /// The same workload on a registry without a sink: memory of the registry alone.
        var registryOnly = false
        /// Whether resident memory must stay flat. Off under ThreadSanitizer, whose shadow
        /// memory grows with every address first touched and whose slowed threads leave a
        /// 5-second run in its warm-up: there the soak is for races, not memory.
        var checksMemory = true

        /// Parses `--seconds S --threads T --journal PATH --registry-only --no-memory-check`;
        /// `nil` if they do not parse.
        init?(_ arguments: [String]) {
            var rest = arguments[...]
            while let name = rest.popFirst() {
                if name == "--registry-only" {
                    registryOnly = true
                    continue
                }
                if name == "--no-memory-check" {
                    checksMemory = false
                    continue
                }
                guard let value = rest.popFirst() else { return nil }
                switch name {
                case "--seconds": guard let seconds = Double(value), seconds > 0 else { return nil }; self.seconds = seconds
                case "--threads": guard let threads = Int(value), threads > 0 else { return nil }; self.threads = threads
                case "--journal": journal = value
                default: return nil
                }
            }
        }
    }

    /// What the workload did, counted by the workload itself.
    struct Tally {
        var registrations = 0
        var replacements = 0
        var changes = 0
        var deliveries = 0
        var doubleRemovals = 0
        var scopes = 0

        static func + (a: Tally, b: Tally) -> Tally {
            Tally(
                registrations: a.registrations + b.registrations, replacements: a.replacements + b.replacements,
                changes: a.changes + b.changes, deliveries: a.deliveries + b.deliveries,
                doubleRemovals: a.doubleRemovals + b.doubleRemovals, scopes: a.scopes + b.scopes
            )
        }
    }

    final class Subject {}
    final class Owner {}
    /// A count shared by the workload's threads (its changes, its deliveries).
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    let settings: Settings

    init(_ settings: Settings) {
        self.settings = settings
    }

    /// Runs the soak and prints what it found; `true` if every check passed.
    func run() -> Bool {
        let directory = NSTemporaryDirectory() + "journal-soak-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = settings.journal ?? directory + "/soak.sqlite"
        defer { if settings.journal == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let recording: RecordingSession
        do {
            recording = try Journal.open(path: path).startSession(label: "soak")
        } catch {
            print("soak: cannot start: \(error)")
            return false
        }
        let registry = settings.registryOnly ? ObserverRegistry() : recording.registry
        let deadline = Date().addingTimeInterval(settings.seconds)
        let shared = ObservableValue(0, subject: sharedSubject, key: "shared", registry: registry)
        let tallies = Locked<[Tally]>([])
        // Memory is judged against work: the recorder's events, or without one the
        // workload's own changes (the registry has no event counter).
        let changes = Counter()
        // Counted for all threads and read once they all ended: another thread's post may
        // still be calling this thread's shared observer after it cancelled its token (the
        // delivery had passed its check before), so a thread's own count read when it
        // stops can miss a delivery the journal rightly has.
        let deliveries = Counter()
        let progress: @Sendable () -> Int
        if settings.registryOnly {
            progress = { changes.value.load(ordering: .relaxed) }
        } else {
            progress = { recording.counters.accepted }
        }
        let memory = ResidentMemory.Sampler(every: max(0.05, settings.seconds / 60), progress: progress)
        memory.start()
        let group = DispatchGroup()
        for worker in 0..<settings.threads {
            group.enter()
            Thread {
                let tally = Self.work(
                    worker, registry: registry, shared: shared, changes: changes, deliveries: deliveries, until: deadline
                )
                tallies.withLock { $0.append(tally) }
                group.leave()
            }.start()
        }
        group.wait()
        let samples = memory.stop()
        recording.close()
        var tally = tallies.withLock { $0 }.reduce(Tally(), +)
        tally.deliveries = deliveries.value.load(ordering: .relaxed)
        if settings.registryOnly {
            let growth = ResidentMemory.growth(samples, unit: "changes")
            print("soak, registry only: \(settings.threads) threads, \(settings.seconds) s: \(tally.changes) changes, \(tally.deliveries) deliveries; registry \(registry.statistics); RSS \(growth.description)")
            return growth.flat
        }
        return check(path: path, recording: recording, tally: tally, samples: samples)
    }

    let sharedSubject = Subject()

    /// One thread's work: rounds of registering, posting and removing in every way the
    /// registry offers, until the deadline.
    static func work(
        _ worker: Int, registry: ObserverRegistry, shared: ObservableValue<Int>, changes: Counter,
        deliveries: Counter, until deadline: Date
    ) -> Tally {
        var tally = Tally()
        let count: @Sendable () -> Void = { deliveries.value.add(1, ordering: .relaxed) }
        // Registered for the whole run: the shared channel always has a live observer
        // while this thread posts to it.
        let sharedOwner = Owner()
        let sharedToken = shared.observe(owner: sharedOwner) { _, _ in count() }
        tally.registrations += 1
        var round = 0
        while Date() < deadline {
            round += 1
            let changesBefore = tally.changes
            let subject = Subject()
            let value = ObservableValue(0, subject: subject, key: "value", registry: registry)
            let slot = CallbackProperty<Int>(subject: subject, key: "progress", registry: registry)
            let scope = registry.beginScope("round")
            tally.scopes += 1
            var owners = (0..<4).map { _ in Owner() }
            var tokens: [ObservationToken] = []
            for owner in owners {
                tokens.append(value.observe(owner: owner, scope: scope) { _, _ in count() })
                tokens.append(registry.observe(notification: "tick \(worker)", owner: owner) { _, _ in count() })
            }
            tally.registrations += 2 * owners.count
            slot.assign(owner: owners[0]) { _, _ in count() }
            slot.assign(owner: owners[1]) { _, _ in count() }
            tally.registrations += 2
            tally.replacements += 1
            for step in 1...10 {
                value.value = step
                registry.post(notification: "tick \(worker)", payload: step)
                slot.call(step)
                tally.changes += 3
            }
            // Values unique across threads: two threads setting the same value would be a
            // redundant change the workload did not mean.
            shared.value = worker + round * 1_000
            tally.changes += 1
            changes.value.add(tally.changes - changesBefore, ordering: .relaxed)
            // Every way a registration ends: cancelled (and once more, on purpose),
            // all of an owner's removed, removal of a channel's, owner deallocated.
            tokens[0].cancel()
            tokens[0].cancel()
            tally.doubleRemovals += 1
            slot.clear()
            registry.removeObservers(owner: owners[1])
            tokens[4].cancel()
            tokens.removeAll()      // the rest go with their tokens
            owners.removeAll()
            scope.end()
            if round % 50 == 0 { registry.sweep() }
        }
        sharedToken.cancel()
        return tally
    }

    // MARK: - Checks

    /// The session's events by kind, counted as `obsreplay` reads them: rows and blocks
    /// merged and decoded by the reader, one event at a time (a minute of soak is millions
    /// of events, so nothing is held).
    static func eventCounts(_ reader: JournalReader, session: Int64) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        try reader.forEachEvent(session: session) { event in
            counts[event.kindText, default: 0] += 1
            return true
        }
        return counts
    }

    func check(path: String, recording: RecordingSession, tally: Tally, samples: [ResidentMemory.Sample]) -> Bool {
        var failures: [String] = []
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { failures.append(message()) }
        }
        let counters = recording.counters
        var kinds: [String: Int] = [:]
        // Tallied as they stream out of the spool, not held: a minute of soak has tens
        // of thousands of findings (one per second cancel, one per reassigned slot), and
        // holding them as values took this check past 250 MiB.
        var findingsByRule: [String: Int] = [:]
        var unexpected: [String] = []
        var removals = 0
        do {
            let reader = try JournalReader(path: path)
            let session = try reader.session(recording.sessionID)
            kinds = try Self.eventCounts(reader, session: session.id)
            // Callbacks here take microseconds; on a loaded machine a preempted thread can
            // still take longer than a frame, which is the scheduler, not the workload.
            let spool = FindingSpool()
            try Diagnoser.diagnose(
                reader, session: session, options: DiagnosisOptions(slowCallbackBudgetNs: 5_000_000_000), into: spool
            )
            try spool.drain { finding in
                findingsByRule[finding.rule.name, default: 0] += 1
                // On purpose: the second cancel of a token (remove-unregistered) and the slot's
                // reassignment while its first owner lived (last-callback-wins). Nothing else.
                if ![.removeUnregistered, .lastCallbackWins].contains(finding.rule), unexpected.count < 5 {
                    unexpected.append(finding.message)
                }
                if finding.rule == .removeUnregistered { removals += finding.count }
            }
        } catch {
            failures.append("cannot read the journal: \(error)")
        }
        let total = kinds.values.reduce(0, +)
        expect(recording.lastError == nil, "recording failed: \(recording.lastError!)")
        expect(counters == RecordingCounters(accepted: total, written: total), "counters \(counters), journal holds \(total)")
        expect(kinds["registered", default: 0] + kinds["replaced", default: 0] == tally.registrations,
               "registrations: journal \(kinds["registered", default: 0]) + \(kinds["replaced", default: 0]) replaced, workload \(tally.registrations)")
        expect(kinds["replaced", default: 0] == tally.replacements, "replaced: journal \(kinds["replaced", default: 0]), workload \(tally.replacements)")
        expect(kinds["removed", default: 0] == tally.registrations - tally.replacements,
               "removed: journal \(kinds["removed", default: 0]), workload \(tally.registrations - tally.replacements)")
        expect(kinds["changed", default: 0] == tally.changes, "changed: journal \(kinds["changed", default: 0]), workload \(tally.changes)")
        expect(kinds["delivered", default: 0] == tally.deliveries, "delivered: journal \(kinds["delivered", default: 0]), workload \(tally.deliveries)")
        expect(kinds["removeUnregistered", default: 0] == tally.doubleRemovals,
               "removeUnregistered: journal \(kinds["removeUnregistered", default: 0]), workload \(tally.doubleRemovals)")
        expect(kinds["scopeBegan", default: 0] == tally.scopes && kinds["scopeEnded", default: 0] == tally.scopes,
               "scopes: journal \(kinds["scopeBegan", default: 0])/\(kinds["scopeEnded", default: 0]), workload \(tally.scopes)")
        expect(kinds["skipped", default: 0] == 0 && kinds["gap", default: 0] == 0, "unexpected skips or gaps: \(kinds)")
        expect(recording.registry.statistics.registrations == 0, "registry still holds \(recording.registry.statistics)")
        expect(unexpected.isEmpty, "unexpected findings: \(unexpected)")
        expect(removals == tally.doubleRemovals, "remove-unregistered counts \(removals), workload \(tally.doubleRemovals)")
        let growth = ResidentMemory.growth(samples, unit: "events")
        if settings.checksMemory { expect(growth.flat, "memory grew: \(growth.description)") }

        let rate = Double(total) / settings.seconds
        print("""
            soak: \(settings.threads) threads, \(settings.seconds) s: \(total) events (\(Int(rate))/s), \
            \(tally.registrations) registrations, \(tally.changes) changes, \(tally.deliveries) deliveries, \
            \(counters.dropped) dropped, \(counters.unwritten) unwritten; findings \(findingsByRule); \
            RSS \(growth.description)
            """)
        for failure in failures { print("soak: FAILED: \(failure)") }
        return failures.isEmpty
    }
}
