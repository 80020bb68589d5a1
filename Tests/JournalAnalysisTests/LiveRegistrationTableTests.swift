@testable import JournalAnalysis
import Testing

// The live registrations are held as compact records: each row must come back exactly as
// it went in, whatever it holds, and removing one must not disturb the others.

private func row(
    _ id: Int64, channel: Int64 = 7, owner: Int64 = 3, options: String = "new", queue: String? = nil,
    sender: Int64? = nil, scope: Int64? = nil, removedSeq: Int64? = nil, reason: String? = nil
) -> RegistrationRow {
    RegistrationRow(
        id: id, channelID: channel, ownerID: owner, callSiteID: 40 + id, options: options, queue: queue,
        expectsMain: id % 2 == 0, senderID: sender, scopeID: scope, registeredSeq: 100 + id, removedSeq: removedSeq,
        removalReason: reason
    )
}

@Test func theLiveTableGivesBackEachRowAsItWasInserted() {
    let rows = [
        row(1),
        row(2, options: "initial,prior,old,new,onlyWhenChanged", queue: "com.example.sync", sender: 0, scope: 9),
        row(3, owner: -5, options: "", sender: .max, scope: .min, removedSeq: 250, reason: "tokenReleased"),
        row(4, channel: .max, queue: "", removedSeq: 0, reason: "a reason this version does not know"),
    ]
    var table = LiveRegistrationTable()
    for row in rows { table.insert(row) }
    #expect(table.count == 4)
    for row in rows { #expect(table[row.id] == row) }
    #expect(table[5] == nil)
    #expect(table.contains(3) && !table.contains(5))
    #expect(table.values.sorted { $0.id < $1.id } == rows)
    #expect(table.rows(inScope: 9) == [rows[1]])
    #expect(table.rows(inScope: .min) == [rows[2]])
    #expect(table.rows(inScope: 0).isEmpty)
}

@Test func removingALiveRowLeavesTheOthersAsTheyWere() {
    var table = LiveRegistrationTable()
    for id in Int64(1)...5 { table.insert(row(id, scope: id % 2 == 0 ? 1 : nil)) }
    #expect(table.removeValue(forKey: 2) == row(2, scope: 1))
    #expect(table.removeValue(forKey: 2) == nil)
    #expect(table.removeValue(forKey: 5) == row(5))
    #expect(table.count == 3)
    #expect(table.values.map(\.id).sorted() == [1, 3, 4])
    for id: Int64 in [1, 3] { #expect(table[id] == row(id)) }
    #expect(table[4] == row(4, scope: 1))
    #expect(table.rows(inScope: 1) == [row(4, scope: 1)])
    // Inserting an id again replaces its row.
    table.insert(row(3, options: "old"))
    #expect(table.count == 3)
    #expect(table[3] == row(3, options: "old"))
    for id: Int64 in [1, 3, 4] { table.removeValue(forKey: id) }
    #expect(table.isEmpty && table.values.map(\.id).isEmpty)
}

@Test func textsThePoolHasNoRoomForStayWithTheirRows() {
    var table = LiveRegistrationTable()
    let long = String(repeating: "q", count: TextPool.longest + 1)
    let rows = (Int64(1)...Int64(TextPool.limit + 3)).map { id in
        row(id, options: "new", queue: "queue \(id)", reason: id == 1 ? long : nil)
    }
    for row in rows { table.insert(row) }
    for row in rows { #expect(table[row.id] == row) }
    for row in rows where row.id % 3 == 0 { table.removeValue(forKey: row.id) }
    for row in rows where row.id % 3 != 0 { #expect(table[row.id] == row) }
}

@Test func theTextPoolNumbersDistinctTextsUpToItsLimit() {
    var pool = TextPool()
    #expect(pool.intern(nil) == TextPool.none)
    #expect(pool.intern("new") == 0)
    #expect(pool.intern("new,old") == 1)
    #expect(pool.intern("new") == 0)
    #expect(pool.intern(String(repeating: "x", count: TextPool.longest)) == 2)
    #expect(pool.intern(String(repeating: "x", count: TextPool.longest + 1)) == nil)
    #expect(pool[0] == "new" && pool[1] == "new,old" && pool[TextPool.none] == nil && pool[3] == nil)
    for index in 3..<TextPool.limit { #expect(pool.intern("text \(index)") == UInt32(index)) }
    #expect(pool.count == TextPool.limit)
    #expect(pool.intern("one more") == nil)
    #expect(pool.intern("new,old") == 1)
}
