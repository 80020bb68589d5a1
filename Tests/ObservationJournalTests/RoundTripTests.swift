import Foundation
@testable import ObservationJournal
import ObserverCore
import Synchronization
import Testing
import TestSupport

@Suite struct RoundTripTests {
    /// Every kind of event, written and read back with exact values.
    @Test func everyEventKindRoundTrips() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let journal = try Journal.open(path: path)
        let recording = try journal.startSession(label: "round trip")
        let registry = recording.registry
        let here = currentThread()
        let file = "ObservationJournalTests/RoundTripTests.swift"

        let player = Player()
        var screen: Screen? = Screen("a")
        let other = Screen("b")
        let scope = registry.beginScope("NowPlaying visible")                             // 1 scopeBegan
        let isPlaying = ObservableValue(false, subject: player, key: "isPlaying", registry: registry)
        let observeLine = #line + 1
        let token = isPlaying.observe(owner: screen!, options: [.initial, .new, .onlyWhenChanged], scope: scope) { _, _ in }
        // 2 registered (reg 1, owner Screen#2), 3 delivered (initial value)
        let setLine = #line + 1
        isPlaying.set(true)                                                              // 4 changed, 5 delivered
        isPlaying.set(true)                                                              // 6 changed, 7 skipped
        let slot = CallbackProperty<Int>(subject: player, key: "progress", registry: registry)
        let assignLine = #line + 1
        slot.assign(owner: screen!) { _, _ in }                                          // 8 registered (reg 2)
        slot.assign(owner: other) { _, _ in }                                            // 9 replaced (reg 3 replaces 2)
        let cancelLine = #line + 1
        token.cancel()                                                                   // 10 removed tokenCancelled
        let cancelAgainLine = #line + 1
        token.cancel()                                                                   // 11 removeUnregistered
        let typoLine = #line + 1
        registry.removeObservers(owner: other, subject: player, key: "isPlayng")         // 12 removeUnregistered
        scope.end()                                                                      // 13 scopeEnded
        let sender = Player()
        let notificationLine = #line + 1
        let notificationToken = registry.observe(notification: "didLogin", sender: sender, owner: other) { _, _ in }
        // 14 registered (reg 4, sender Player#4)
        let postLine = #line + 1
        registry.post(notification: "didLogin", payload: "alice")                      // 15 changed, 16 skipped
        _ = notificationToken
        let prior = ObservableValue(1, subject: player, key: "volume", registry: registry)
        let priorLine = #line + 1
        let priorToken = prior.observe(owner: screen!, options: [.prior, .old, .new]) { _, _ in }  // 17 registered (reg 5)
        let volumeLine = #line + 1
        prior.set(2)                                                        // 18 changed prior, 19 delivered, 20 changed, 21 delivered
        _ = priorToken
        screen = nil
        recording.close()                                                   // 22 removed reg 5 ownerDeallocated

        #expect(recording.counters == RecordingCounters(accepted: 22, written: 22, dropped: 0, unwritten: 0))
        #expect(recording.lastError == nil)
        let columns = """
            seq, (SELECT name FROM event_kinds WHERE code = kind), flags & 1, channel_id, registration_id, owner_id, other_registration_id, call_site_id,
            scope_id, flags >> 4, live_count, duration_ns IS NOT NULL, (flags >> 1) & 1, old_value, new_value, reason, detail
            """
        let events = try rows(path, """
            SELECT \(columns) FROM events LEFT JOIN event_details USING (session_id, seq)
            WHERE session_id = \(recording.sessionID) ORDER BY seq
            """)
        let main = here.isMain ? 1 : 0
        #expect(events == [
            "1|scopeBegan|\(main)|NULL|NULL|NULL|NULL|NULL|1|0|NULL|0|0|NULL|NULL|NULL|NULL",
            "2|registered|\(main)|1|1|2|NULL|1|NULL|0|NULL|0|0|NULL|NULL|NULL|NULL",
            "3|delivered|\(main)|1|1|2|NULL|NULL|NULL|0|NULL|1|0|NULL|false|NULL|NULL",
            "4|changed|\(main)|1|NULL|NULL|NULL|2|NULL|0|1|0|0|false|true|NULL|NULL",
            "5|delivered|\(main)|1|1|2|NULL|NULL|NULL|0|NULL|1|0|NULL|NULL|NULL|NULL",
            "6|changed|\(main)|1|NULL|NULL|NULL|3|NULL|0|1|0|0|true|true|NULL|NULL",
            "7|skipped|\(main)|1|1|2|NULL|NULL|NULL|0|NULL|0|0|NULL|NULL|unchanged|NULL",
            "8|registered|\(main)|2|2|2|NULL|4|NULL|0|NULL|0|0|NULL|NULL|NULL|NULL",
            "9|replaced|\(main)|2|3|3|2|5|NULL|0|NULL|0|0|NULL|NULL|NULL|NULL",
            "10|removed|\(main)|1|1|2|NULL|6|NULL|0|NULL|0|0|NULL|NULL|tokenCancelled|NULL",
            "11|removeUnregistered|\(main)|NULL|1|2|NULL|7|NULL|0|NULL|0|0|NULL|NULL|NULL|NULL",
            "12|removeUnregistered|\(main)|NULL|NULL|3|NULL|8|NULL|0|NULL|0|0|NULL|NULL|NULL|Player#1.isPlayng",
            "13|scopeEnded|\(main)|NULL|NULL|NULL|NULL|NULL|1|0|NULL|0|0|NULL|NULL|NULL|NULL",
            "14|registered|\(main)|3|4|3|NULL|9|NULL|0|NULL|0|0|NULL|NULL|NULL|NULL",
            "15|changed|\(main)|3|NULL|NULL|NULL|10|NULL|0|1|0|0|NULL|alice|NULL|NULL",
            "16|skipped|\(main)|3|4|3|NULL|NULL|NULL|0|NULL|0|0|NULL|NULL|senderMismatch|NULL",
            "17|registered|\(main)|4|5|2|NULL|11|NULL|0|NULL|0|0|NULL|NULL|NULL|NULL",
            "18|changed|\(main)|4|NULL|NULL|NULL|12|NULL|0|1|0|1|1|2|NULL|NULL",
            "19|delivered|\(main)|4|5|2|NULL|NULL|NULL|0|NULL|1|0|NULL|NULL|NULL|NULL",
            "20|changed|\(main)|4|NULL|NULL|NULL|12|NULL|0|1|0|0|1|2|NULL|NULL",
            "21|delivered|\(main)|4|5|2|NULL|NULL|NULL|0|NULL|1|0|NULL|NULL|NULL|NULL",
            "22|removed|\(main)|4|5|2|NULL|NULL|NULL|0|NULL|0|0|NULL|NULL|ownerDeallocated|NULL",
        ])
        #expect(try rows(path, "SELECT DISTINCT thread FROM events") == ["\(here.number)"])
        #expect(try rows(path, """
            SELECT count(*) FROM events e1 JOIN events e2 ON e2.session_id = e1.session_id AND e2.seq = e1.seq + 1
            WHERE e2.time_ns < e1.time_ns OR e1.time_ns < 0
            """) == ["0"])

        #expect(try rows(path, "SELECT id, type, first_seq, dealloc_seq FROM object_names ORDER BY id") == [
            "1|Player|2|NULL", "2|Screen|2|22", "3|Screen|9|NULL", "4|Player|14|NULL",
        ])
        #expect(try rows(path, "SELECT id, name, key, policy, first_seq FROM channel_names ORDER BY id") == [
            "1|Player#1.isPlaying|isPlaying|multicast|2",
            "2|Player#1.progress|progress|singleSlot|8",
            "3|*.didLogin|didLogin|multicast|14",
            "4|Player#1.volume|volume|multicast|17",
        ])
        #expect(try rows(path, "SELECT s.id, n.value, began_seq, ended_seq FROM scopes s JOIN strings n ON n.id = s.name_id")
            == ["1|NowPlaying visible|1|13"])
        let function = "everyEventKindRoundTrips()"
        let sites = [
            observeLine, setLine, setLine + 1, assignLine, assignLine + 1, cancelLine, cancelAgainLine, typoLine,
            notificationLine, postLine, priorLine, volumeLine,
        ]
        #expect(try rows(path, "SELECT id, site, function FROM call_site_names ORDER BY id")
            == sites.enumerated().map { "\($0.offset + 1)|\(file):\($0.element)|\(function)" })
        #expect(try rows(path, """
            SELECT id, channel, owner, call_site, options, queue, expects_main, registered_seq, removed_seq, removal_reason
            FROM registration_log ORDER BY id
            """) == [
            "1|Player#1.isPlaying|Screen#2|\(file):\(observeLine)|initial,new,onlyWhenChanged|NULL|0|2|10|tokenCancelled",
            "2|Player#1.progress|Screen#2|\(file):\(assignLine)|new|NULL|0|8|9|replaced",
            "3|Player#1.progress|Screen#3|\(file):\(assignLine + 1)|new|NULL|0|9|NULL|NULL",
            "4|*.didLogin|Screen#3|\(file):\(notificationLine)|new|NULL|0|14|NULL|NULL",
            "5|Player#1.volume|Screen#2|\(file):\(priorLine)|prior,old,new|NULL|0|17|22|ownerDeallocated",
        ])
        #expect(try rows(path, "SELECT id, sender_id, scope_id FROM registrations ORDER BY id")
            == ["1|NULL|1", "2|NULL|NULL", "3|NULL|NULL", "4|4|NULL", "5|NULL|NULL"])
        let process = ProcessInfo.processInfo
        #expect(try rows(path, """
            SELECT id, label, process, pid, host, clean_end, library_version, ended_at IS NOT NULL, start_ns > 0
            FROM sessions
            """) == [
            "\(recording.sessionID)|round trip|\(process.processName)|\(process.processIdentifier)|\(process.hostName)|1|\(Journal.libraryVersion)|1|1",
        ])
    }
}

extension RoundTripTests {
    /// When `close()` returns, the session's connection is closed: the last connection
    /// folded the WAL into the file and removed it, and the app may move the file.
    @Test func closeReleasesTheFile() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let recording = try Journal.open(path: path).startSession(label: "release")
        recording.registry.beginScope("s").end()
        recording.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        try FileManager.default.moveItem(atPath: path, toPath: path + ".moved")
        #expect(try rows(path + ".moved", "SELECT k.name FROM events e JOIN event_kinds k ON k.code = e.kind ORDER BY e.seq") == ["scopeBegan", "scopeEnded"])
    }

    /// A queued delivery skipped after its registration was removed names the registration
    /// and its owner, although the writer no longer holds the ended registration's
    /// definition (it keeps those of live registrations only, so memory does not grow with
    /// the session's history).
    @Test func aSkipAfterRemovalNamesItsRegistrationAndOwner() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let recording = try Journal.open(path: path).startSession(label: "late skip")
        let player = Player()
        let screen = Screen("late")
        let volume = ObservableValue(0, subject: player, key: "volume", registry: recording.registry)
        let queue = DispatchQueue(label: "test.late-skip")
        let token = volume.observe(owner: screen, queue: queue) { _, _ in }
        queue.suspend()
        volume.value = 6
        token.cancel()
        queue.resume()
        queue.sync {}
        recording.close()
        #expect(try rows(path, """
            SELECT e.seq, k.name, e.registration_id, e.owner_id, COALESCE(e.reason, ''), COALESCE(e.seq - e.change_back, '')
            FROM events e JOIN event_kinds k ON k.code = e.kind ORDER BY e.seq
            """) == [
            "1|registered|1|2||", "2|changed|NULL|NULL||", "3|removed|1|2|tokenCancelled|",
            "4|skipped|1|2|removedBeforeDelivery|2",
        ])
        withExtendedLifetime(screen) {}
    }
}
