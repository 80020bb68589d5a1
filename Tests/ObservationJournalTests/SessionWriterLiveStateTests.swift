import Foundation
@testable import ObservationJournal
import ObserverCore
import Testing
import TestSupport

/// The writer keeps only the live objects, channels, registrations and scopes (its memory
/// follows the app's live state, not the session's history): checked with the real path,
/// a registry recording into the buffer and the writer writing its batches directly, one
/// batch per step, on this thread as the writer thread would.
@Suite struct SessionWriterLiveStateTests {
    /// What the writer holds after a batch.
    struct Held: Equatable, CustomStringConvertible {
        /// The live objects' counts of live registrations and channels naming them, sorted.
        var objectCounts: [Int]
        var channels: Int
        var registrations: Int
        var scopes: Int

        var description: String {
            "objects \(objectCounts), channels \(channels), registrations \(registrations), scopes \(scopes)"
        }
    }

    @Test func trackedStateIsTheLiveStateAndEmptyOnceEverythingEnded() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        _ = try Journal.open(path: path)
        let writer = try SessionWriter(
            database: try SQLiteDatabase(path: path, mode: .readWrite), label: "live", values: ValueRecording()
        )
        let buffer = EventBuffer(capacity: 1_024, policy: .wait, gatherMilliseconds: 0)
        let registry = ObserverRegistry(sink: buffer)
        var spare = PendingEvents()
        /// Writes what the registry recorded since the last step. A scope begun and ended in
        /// the batch makes sure it is not empty (taking an empty batch would wait), and is
        /// itself never held once its end is written.
        func step() throws -> Held {
            registry.beginScope("step").end()
            let batch = try #require(buffer.takeBatch(swapping: &spare))
            try writer.write(batch)
            buffer.committed(batch)
            spare = PendingEvents()
            return Held(
                objectCounts: writer.objects.values.sorted(), channels: writer.channels.count,
                registrations: writer.registrations.count, scopes: writer.scopes.count
            )
        }
        func held(_ objects: [Int], _ channels: Int, _ registrations: Int, _ scopes: Int) -> Held {
            Held(objectCounts: objects, channels: channels, registrations: registrations, scopes: scopes)
        }

        var player: Player? = Player()
        let a = Screen("a")
        let b = Screen("b")
        var value: ObservableValue<Int>? = ObservableValue(0, subject: player!, key: "count", registry: registry)
        let scope = registry.beginScope("screen")
        var tokenA: ObservationToken? = value!.observe(owner: a, scope: scope) { _, _ in }
        var tokenB: ObservationToken? = value!.observe(owner: b) { _, _ in }
        value!.value = 1
        // The player (its channel), a and b (a registration each); one channel, two
        // registrations, the open scope.
        #expect(try step() == held([1, 1, 1], 1, 2, 1))

        tokenA = nil
        scope.end()
        // a's registration is removed, so a is no longer held; the scope ended.
        #expect(try step() == held([1, 1], 1, 1, 0))

        var gone: Player? = Player()
        var goneValue: ObservableValue<String>? = ObservableValue("x", subject: gone!, key: "name", registry: registry)
        var goneToken: ObservationToken? = goneValue!.observe(owner: b) { _, _ in }
        goneValue!.value = "y"
        // A second channel (its subject held once) and b's second registration (b held twice).
        #expect(try step() == held([1, 1, 2], 2, 2, 0))

        gone = nil
        goneToken = nil
        goneValue = nil
        // The registration is removed and the channel deallocated: its subject is let go.
        #expect(try step() == held([1, 1], 1, 1, 0))

        tokenB = nil
        player = nil
        value = nil
        // Nothing is live any more: nothing is held.
        #expect(try step() == held([], 0, 0, 0))

        // What was let go is in the journal, ended.
        #expect(try rows(path, """
            SELECT count(*), count(removed_seq) FROM registrations
            UNION ALL SELECT count(*), count(ended_seq) FROM scopes
            UNION ALL SELECT count(*), count(DISTINCT subject_id) FROM channels
            """) == ["3|3", "6|6", "2|2"])
        _ = (tokenA, tokenB, gone, goneToken)
    }
}
