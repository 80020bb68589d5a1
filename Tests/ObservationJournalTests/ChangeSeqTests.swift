import Foundation
@testable import ObservationJournal
import ObserverCore
import Testing
import TestSupport

/// The writer turns the registry's change numbers into `events.change_seq`: the seq of the
/// `changed` row a delivery or skip belongs to, so readers need not infer it.
@Suite struct ChangeSeqTests {
    @Test func deliveriesAndSkipsNameTheirChangesRow() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        _ = try Journal.open(path: path)
        let writer = try SessionWriter(
            database: try SQLiteDatabase(path: path, mode: .readWrite), label: "changes", values: ValueRecording()
        )
        let player = ObjectRef(id: 1, typeName: "Player")
        let channel = ChannelInfo(id: 1, subject: player, key: "rate", policy: .multicast)
        let site = CallSite(file: "App/Screen.swift", line: 5, function: "f()")
        let first = RegistrationInfo(
            id: 1, channelID: 1, owner: ObjectRef(id: 2, typeName: "Screen"), callSite: site, options: .new
        )
        func event(_ kind: ObserverEvent.Kind, _ number: UInt64?, skip: SkipReason? = nil) -> ObserverEvent {
            ObserverEvent(
                kind: kind, time: 0, thread: 1, isMainThread: true, channel: channel,
                registration: kind == .changed ? nil : first, skipReason: skip, changeNumber: number
            )
        }
        // Decoded events, as the buffer hands over the rare ones: each behind an `.event` record.
        var pending = PendingEvents()
        pending.events = [
            event(.registered, nil),                       // 1
            event(.changed, 7),                            // 2
            event(.changed, 8),                            // 3: posted before change 7 was delivered
            event(.delivered, 7),                          // 4: change 7's queued delivery
            event(.skipped, 8, skip: .unchanged),          // 5
            event(.delivered, 3),                          // 6: a change the writer never saw
            event(.delivered, nil),                        // 7: no change (an initial value)
        ]
        pending.records = pending.events.map { _ in
            EventRecord(kind: .event, flags: [], time: 0, thread: 1, channel: 0, depth: 0)
        }
        try writer.write(RecordBatch(firstSeq: 1, pending: pending, gap: nil, endsSession: true))
        #expect(try rows(path, "SELECT seq, COALESCE(change_seq, 'NULL') FROM event_log ORDER BY seq") == [
            "1|NULL", "2|NULL", "3|NULL", "4|2", "5|3", "6|NULL", "7|NULL",
        ])
    }
}
