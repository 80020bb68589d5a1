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

    /// An `Int`, `Bool` or `Double` kept as bits gets the text its boxed value gets, under
    /// every redaction and at every length limit around the longest such text.
    @Test func valuesKeptAsBitsGetTheTextOfTheirBoxedValue() {
        let changes = [
            ChangeValues(old: 0, new: Int.min), ChangeValues(old: Int.max, new: nil), ChangeValues(old: -123_456_789, new: 42),
            ChangeValues(old: true, new: false), ChangeValues(old: 0.1, new: -1e300), ChangeValues(old: Double.nan, new: -.infinity),
            ChangeValues(old: Int??.some(3), new: Int??.some(nil)), ChangeValues(old: "text", new: nil),
        ]
        #expect(changes[0].plainOld == .int(0))
        #expect(changes[1].plainNew == .absent)
        #expect(changes[3].plainNew == .bool(false))
        #expect(changes[4].plainOld == .double(0.1))
        #expect(changes[6].plainOld == .other)
        #expect(changes[7].plainOld == .other)
        var compared = 0
        for maxLength in [0, 1, 4, 5, 6, 19, 20, 21, 200] {
            for redaction in [ValueRecording.Redaction.full, .typeOnly, .none] {
                let policy = ValueRecording(maxLength: maxLength, redaction: redaction)
                for change in changes {
                    let old = policy.text(for: change.plainOld, boxed: { change.old }, redaction: redaction)
                    let new = policy.text(for: change.plainNew, boxed: { change.new }, redaction: redaction)
                    #expect(old?.string == policy.text(for: change.old, key: nil), "\(maxLength) \(redaction) \(String(describing: change.old))")
                    #expect(new?.string == policy.text(for: change.new, key: nil), "\(maxLength) \(redaction) \(String(describing: change.new))")
                    compared += 2
                }
            }
        }
        #expect(compared == 9 * 3 * changes.count * 2)
        let full = ValueRecording(maxLength: 20)
        #expect(full.text(for: .int(.min), boxed: { nil }, redaction: .full)?.string == "-9223372036854775808")
        #expect(ValueRecording(maxLength: 19).text(for: .int(.min), boxed: { EventValue(Int.min) }, redaction: .full)?.string
            == "-92233720368547758…")
        #expect(ValueRecording(maxLength: 4).text(for: .bool(false), boxed: { EventValue(false) }, redaction: .full)?.string == "fal…")
    }

    /// Numbers reach the journal's blocks as their text, truncated under the policy.
    @Test func journalStoresNumbersAsTheirText() throws {
        let scratch = try ScratchDirectory()
        var stored: [String] = []
        for maxLength in [200, 8] {
            let path = scratch.path("numbers-\(maxLength).sqlite")
            let values = ValueRecording(maxLength: maxLength)
            let recording = try Journal.open(path: path, options: .init(values: values)).startSession(label: "numbers \(maxLength)")
            let subject = Player()
            let count = ObservableValue(0, subject: subject, key: "count", registry: recording.registry)
            let flag = ObservableValue(false, subject: subject, key: "flag", registry: recording.registry)
            let level = ObservableValue(0.0, subject: subject, key: "level", registry: recording.registry)
            count.value = -1_234_567_890
            flag.value = true
            level.value = 0.25
            recording.close()
            stored += try rows(path, "SELECT old_value, new_value FROM event_log WHERE kind = 'changed' ORDER BY seq")
        }
        #expect(stored == [
            "0|-1234567890", "false|true", "0.0|0.25",
            "0|-123456…", "false|true", "0.0|0.25",
        ])
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
