import Dispatch
@testable import ObservationJournal
import ObserverCore
import Testing
import TestSupport

@Suite struct ValueRecordingTests {
    @Test func longDescriptionsAreTruncatedWithAnEllipsis() {
        let policy = ValueRecording(maxLength: 5)
        #expect(policy.text(for: EventValue("abcde"), key: "k") == "abcde")
        #expect(policy.text(for: EventValue("abcdef"), key: "k") == "abcd…")
        #expect(policy.text(for: EventValue("ééééé"), key: "k") == "ééééé")
        #expect(policy.text(for: EventValue("éééééé"), key: "k") == "éééé…")
        #expect(policy.text(for: EventValue(123_456), key: "k") == "1234…")
        #expect(ValueRecording(maxLength: 0).text(for: EventValue("ab"), key: "k") == "…")
        #expect(policy.text(for: nil, key: "k") == nil)
    }

    @Test func redactionAppliesPerKey() {
        let policy = ValueRecording(
            redaction: .typeOnly, redactionByKey: ["password": .none, "volume": .full]
        )
        #expect(policy.text(for: EventValue("secret"), key: "password") == nil)
        #expect(policy.text(for: EventValue("alice"), key: "name") == "<String>")
        #expect(policy.text(for: EventValue(0.5), key: "volume") == "0.5")
        #expect(policy.text(for: EventValue(Optional(3) as Int?), key: "count") == "<Optional<Int>>")
    }

    /// The policy reaches the journal's old and new values.
    @Test func journalStoresValuesUnderThePolicy() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let values = ValueRecording(maxLength: 8, redactionByKey: ["token": .typeOnly, "password": .none])
        let recording = try Journal.open(path: path, options: .init(values: values)).startSession(label: "values")
        let registry = recording.registry
        let subject = Player()
        let name = ObservableValue("", subject: subject, key: "name", registry: registry)
        let token = ObservableValue("", subject: subject, key: "token", registry: registry)
        let password = ObservableValue("", subject: subject, key: "password", registry: registry)
        let owner = Screen("o")
        let tokens = [
            name.observe(owner: owner) { _, _ in },
            token.observe(owner: owner) { _, _ in },
            password.observe(owner: owner) { _, _ in },
        ]
        name.value = "Alexandria Ocasio"
        token.value = "abc123"
        password.value = "hunter2"
        recording.close()
        _ = tokens
        #expect(try rows(path, "SELECT channel, old_value, new_value FROM event_log WHERE kind = 'changed' ORDER BY seq") == [
            "Player#1.name||Alexand…",
            "Player#1.token|<String>|<String>",
            "Player#1.password|NULL|NULL",
        ])
    }

    /// A registration's queue label and main-thread expectation are recorded.
    @Test func queueAndMainThreadExpectationAreRecorded() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let recording = try Journal.open(path: path).startSession(label: "queues")
        let subject = Player()
        let value = ObservableValue(0, subject: subject, key: "k", registry: recording.registry)
        let owner = Screen("o")
        let queue = DispatchQueue(label: "com.example.render")
        let tokens = [
            value.observe(owner: owner, queue: queue) { _, _ in },
            value.observe(owner: owner, expectsMainThread: true) { _, _ in },
            value.observe(owner: owner, queue: .main) { _, _ in },
        ]
        recording.close()
        _ = tokens
        #expect(try rows(path, "SELECT id, queue, expects_main FROM registration_log ORDER BY id") == [
            "1|com.example.render|0", "2|NULL|1", "3|com.apple.main-thread|1",
        ])
    }
}
