import Foundation
import JournalFixtures
import JournalStore
import ObservationJournal
import ObserverCore

/// The real journals the mutation harness starts from, each the same bytes in every run
/// (so a case's seed reproduces it), except where a live WAL's random salt is involved.
///
/// - `recorded`: written by `RecordingSession` from a workload that makes every kind of
///   event and row; two sessions, the second left as a crash leaves it. Times, threads
///   and host are then normalised and the file rebuilt with `VACUUM INTO`, which makes
///   its bytes depend only on its content.
/// - `fixture`: written row by row with `JournalFixture`: evidence for every rule of the
///   catalog, in three sessions; at the latest schema, and at schema 1 (0.1.0's: read
///   through an upgraded copy).
/// - `liveWAL`: a journal being written, copied with its `-wal` and `-shm` while the
///   writer has uncommitted and un-checkpointed rows.
struct MutationBases {
    struct Base {
        var name: String
        /// The journal and its side files (`-wal`, `-shm`) as they are on disk.
        var files: [String: Data]
    }

    let bases: [Base]

    init(in directory: URL) throws {
        bases = [
            try Self.recorded(in: directory.appendingPathComponent("recorded")),
            try Self.fixture(in: directory.appendingPathComponent("fixture")),
            try Self.fixture(in: directory.appendingPathComponent("fixture1"), schemaVersion: 1),
            try Self.liveWAL(in: directory.appendingPathComponent("live")),
        ]
    }

    private static func read(_ path: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm"] {
            if let data = FileManager.default.contents(atPath: path + suffix) { files[suffix] = data }
        }
        return files
    }

    // MARK: - recorded

    private final class Subject {}
    private final class Owner {}

    private static func recorded(in directory: URL) throws -> Base {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let raw = directory.appendingPathComponent("raw.sqlite").path
        let journal = try Journal.open(path: raw)
        for label in ["first run", "crashed run"] {
            let recording = try journal.startSession(label: label)
            record(recording.registry)
            recording.close()
        }
        let path = directory.appendingPathComponent("recorded.sqlite").path
        let database = try SQLiteDatabase(path: raw, mode: .readWrite)
        let triggers = try sqlColumn(database, "SELECT sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name")
        for name in try sqlColumn(database, "SELECT name FROM sqlite_schema WHERE type = 'trigger' ORDER BY name") {
            try database.execute("DROP TRIGGER \(name)")
        }
        try database.execute("""
            UPDATE events SET time_ns = seq * 1000000, thread = 1,
                duration_ns = CASE WHEN duration_ns IS NULL THEN NULL ELSE 250000 END,
                cpu_ns = CASE WHEN cpu_ns IS NULL THEN NULL ELSE 200000 END;
            UPDATE event_details SET waits = CASE WHEN waits IS NULL THEN NULL ELSE 1 END;
            UPDATE sessions SET process = 'App', pid = 4242, host = 'testhost', start_ns = 1000, library_version = '0.1.0',
                started_at = '2025-01-01T10:00:0' || id || 'Z',
                ended_at = CASE WHEN id = 2 THEN NULL ELSE '2025-01-01T10:00:09Z' END,
                clean_end = CASE WHEN id = 2 THEN 0 ELSE 1 END;
            UPDATE migrations SET applied_at = '2025-01-01T00:00:00Z';
            """)
        for trigger in triggers { try database.execute(trigger) }
        try database.execute("VACUUM INTO '\(path)'")
        try SQLiteDatabase(path: path, mode: .readWrite).execute("PRAGMA journal_mode = WAL")
        return Base(name: "recorded", files: read(path))
    }

    /// One thread, no queues: the same events in the same order every time.
    private static func record(_ registry: ObserverRegistry) {
        for round in 0..<2 {
            let player = Subject()
            let playing = ObservableValue(false, subject: player, key: "isPlaying", registry: registry)
            let position = ObservableValue(0, subject: player, key: "position", registry: registry)
            let slot = CallbackProperty<Int>(subject: player, key: "progress", registry: registry)
            let scope = registry.beginScope("screen \(round)")
            var owners: [Owner] = (0..<3).map { _ in Owner() }
            var tokens: [ObservationToken] = []
            for owner in owners {
                tokens.append(playing.observe(owner: owner, options: [.new, .onlyWhenChanged], scope: scope) { _, _ in })
                tokens.append(position.observe(owner: owner, options: [.initial, .old, .new]) { _, _ in })
                tokens.append(registry.observe(notification: "tick", sender: player, owner: owner) { _, _ in })
                slot.assign(owner: owner) { _, _ in }
            }
            for step in 0..<12 {
                playing.value = step % 3 == 0
                position.value = step
                slot.call(step)
                if step % 4 == 0 { registry.post(notification: "tick", sender: step % 8 == 0 ? player : nil, payload: step) }
            }
            tokens[0].cancel()
            tokens[0].cancel()
            registry.removeObservers(owner: owners[1], subject: player, key: "positon")
            scope.end()
            owners.removeLast()
            tokens.removeLast(3)
            position.value = 99
            registry.removeObservers(owner: owners[0])
            if round == 1 { tokens.removeAll() }
            _ = tokens
        }
    }

    private static func sqlColumn(_ database: SQLiteDatabase, _ sql: String) throws -> [String] {
        let statement = try database.prepare(sql)
        var values: [String] = []
        while try statement.step() { values.append(statement.text(0)) }
        return values
    }

    // MARK: - fixture

    private static func fixture(in directory: URL, schemaVersion: Int = JournalSchema.latestVersion) throws -> Base {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("fixture.sqlite").path
        let fixture = try JournalFixture(path: path, schemaVersion: schemaVersion)
        try evidence(try fixture.session(label: "every rule"))
        let quiet = try fixture.session(label: "quiet", startedAt: "2025-01-01T11:00:00Z")
        let rate = try quiet.channel(try quiet.object("Player"), "rate")
        let token = try quiet.register(rate, owner: try quiet.object("Screen"), at: "Screen.swift:5")
        try quiet.post(rate, old: "1", new: "2")
        try quiet.remove(token, reason: .tokenCancelled, at: "Screen.swift:9")
        let crashed = try fixture.session(label: "crashed", startedAt: "2025-01-01T12:00:00Z", clean: false)
        let tick = try crashed.channel(0, "tick")
        try crashed.register(tick, owner: try crashed.object("Clock"), at: "Clock.swift:3")
        try crashed.post(tick, new: "1")
        try crashed.gap(dropped: 12)
        try crashed.post(tick, new: "2")
        try fixture.finish()
        let latest = schemaVersion == JournalSchema.latestVersion
        return Base(name: latest ? "fixture" : "fixture at schema \(schemaVersion)", files: read(path))
    }

    /// Something for every rule of the catalog to find.
    static func evidence(_ s: FixtureSession) throws {
        let player = try s.object("Player")
        let floating = try s.object("FloatingWindow"), video = try s.object("VideoScreen"), list = try s.object("List")
        // last-callback-wins, then silent-change once the slot is cleared.
        let slot = try s.channel(player, "isPlayingChanged", singleSlot: true)
        try s.register(slot, owner: floating, at: "FloatingWindow.swift:31")
        try s.post(slot, old: "false", new: "true", at: "Player.swift:40")
        let last = try s.register(slot, owner: video, at: "VideoScreen.swift:20")
        try s.post(slot, old: "true", new: "false", at: "Player.swift:40")
        try s.remove(last, at: "VideoScreen.swift:44")
        try s.post(slot, old: "false", new: "true", at: "Player.swift:40")
        // duplicate-registration, redundant-change, slow-callback, off-main-delivery.
        let rate = try s.channel(player, "rate")
        try s.register(rate, owner: list, at: "List.swift:7")
        try s.register(rate, owner: list, at: "List.swift:7", expectsMain: true)
        try s.post(rate, old: "1", new: "1", duration: 40_000_000)
        try s.inThread(3) { try s.post(rate, old: "1", new: "2") }
        // feedback-loop: a change of `volume` changes `volume` again from its callback.
        let volume = try s.channel(player, "volume")
        try s.register(volume, owner: list, at: "List.swift:12")
        try s.post(volume, old: "1", new: "2") { _ in
            try s.post(volume, old: "2", new: "3") { _ in try s.change(volume, old: "3", new: "4") }
        }
        // never-posted-key (a typo of `volume`) and remove-unregistered (twice, wrong key).
        let typo = try s.channel(player, "volme")
        let typoToken = try s.register(typo, owner: floating, at: "FloatingWindow.swift:50")
        try s.removeUnregistered(at: "FloatingWindow.swift:60", owner: floating, detail: "Player#1.volum")
        // delivery-after-owner-gone, leaked-registration in a scope.
        let scope = try s.beginScope("detail screen")
        let title = try s.channel(player, "title")
        try s.register(title, owner: video, at: "VideoScreen.swift:70", scope: scope)
        try s.endScope(scope)
        try s.deallocate(floating, autoRemove: false)
        try s.deliver(typoToken)
        try s.post(title, old: "a", new: "b")
    }

    // MARK: - liveWAL

    private static func liveWAL(in directory: URL) throws -> Base {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("live.sqlite").path
        let fixture = try JournalFixture(path: path, wal: true)
        let s = try fixture.session(label: "recording", clean: false)
        let rate = try s.channel(try s.object("Player"), "rate")
        let screen = try s.object("Screen")
        try s.register(rate, owner: screen, at: "Screen.swift:5")
        for value in 1...20 { try s.post(rate, old: "\(value - 1)", new: "\(value)") }
        try fixture.commit()
        for value in 21...30 { try s.post(rate, old: "\(value - 1)", new: "\(value)") }
        try fixture.commit()
        try s.post(rate, old: "30", new: "uncommitted")
        let files = read(path)
        try fixture.finish()
        return Base(name: "liveWAL", files: files)
    }
}
