@testable import ObservationJournal
import ObserverCore
import Testing
import TestSupport

@Suite struct ObjectIdentityTests {
    /// An object allocated at the address of a deallocated one is a new object in the
    /// journal: the journal never confuses the two.
    @Test func addressReuseAppearsAsTwoObjects() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let recording = try Journal.open(path: path).startSession(label: "reuse")
        let registry = recording.registry
        let owner = Screen("owner")
        var first: Player? = Player()
        let address = ObjectIdentifier(first!)
        let firstValue = ObservableValue(0, subject: first!, key: "x", registry: registry)
        let firstToken = firstValue.observe(owner: owner) { _, _ in }   // 1 registered
        firstValue.value = 1                                            // 2 changed, 3 delivered
        first = nil
        // Allocate until an object lands at the freed address (usually the first try).
        var kept: [Player] = []
        var second = Player()
        while ObjectIdentifier(second) != address && kept.count < 10_000 {
            kept.append(second)
            second = Player()
        }
        try #require(ObjectIdentifier(second) == address)
        let secondValue = ObservableValue(0, subject: second, key: "x", registry: registry)
        let secondToken = secondValue.observe(owner: owner) { _, _ in }  // 4 registered
        secondValue.value = 2                                           // 5 changed, 6 delivered
        recording.close()                                               // 7 removed (subject gone)
        _ = (firstToken, secondToken)

        #expect(try rows(path, "SELECT id, type, first_seq, dealloc_seq FROM object_names ORDER BY id")
            == ["1|Player|1|7", "2|Screen|1|NULL", "3|Player|4|NULL"])
        #expect(try rows(path, "SELECT id, name FROM channel_names ORDER BY id") == ["1|Player#1.x", "2|Player#3.x"])
        #expect(try rows(path, "SELECT seq, kind, channel, reason FROM event_log WHERE kind = 'removed'")
            == ["7|removed|Player#1.x|subjectDeallocated"])
    }
}
