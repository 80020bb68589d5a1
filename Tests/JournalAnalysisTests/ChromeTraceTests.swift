import Foundation
import JournalAnalysis
import JournalFixtures
import Testing
import TestSupport

/// One trace event as `JSONSerialization` reads it.
typealias TraceEvent = [String: Any]

/// The `traceEvents` of the showcase journal exported as a Chrome trace.
func showcaseTrace() throws -> (document: [String: Any], events: [TraceEvent]) {
    let path = try temporaryDirectory().appendingPathComponent("showcase.sqlite").path
    try ShowcaseScenario.write(to: path)
    let output = StringOutput()
    try Exporter.export(.events, from: try JournalReader(path: path), session: nil, format: .chromeTrace, raw: false, to: output)
    let document = try #require(try JSONSerialization.jsonObject(with: Data(output.text.utf8)) as? [String: Any])
    return (document, try #require(document["traceEvents"] as? [TraceEvent]))
}

/// What breaks the Trace Event Format's rules in `events`, one line per problem:
/// required fields per phase, begins and ends of async spans pairing up (once each, end
/// not before begin), and timestamps that never go back on a thread's track.
func traceProblems(_ events: [TraceEvent]) -> [String] {
    var problems: [String] = []
    var spans: [String: (begins: Int, ends: Int, beginTs: Double, endTs: Double)] = [:]
    var lastTs: [String: Double] = [:]
    for (index, event) in events.enumerated() {
        let ph = event["ph"] as? String ?? ""
        let ts = event["ts"] as? Double
        var required = ["name": event["name"] is String, "ph": !ph.isEmpty, "pid": event["pid"] is Int]
        switch ph {
        case "X":
            required["ts"] = ts != nil
            required["tid"] = event["tid"] is Int
            required["cat"] = event["cat"] is String
            required["dur"] = (event["dur"] as? Double).map { $0 >= 0 } ?? false
        case "i":
            required["ts"] = ts != nil
            required["tid"] = event["tid"] is Int
            required["s"] = ["t", "p", "g"].contains(event["s"] as? String ?? "")
        case "b", "e":
            required["ts"] = ts != nil
            required["cat"] = event["cat"] is String
            required["id"] = event["id"] is Int
        case "M":
            let args = event["args"] as? [String: Any] ?? [:]
            required["args"] = args["name"] is String || args["sort_index"] is Int
            required["tid"] = event["tid"] is Int
        default:
            problems.append("event \(index): unknown phase '\(ph)'")
        }
        for (field, present) in required.sorted(by: { $0.key < $1.key }) where !present {
            problems.append("event \(index) (\(ph)): missing or invalid '\(field)'")
        }
        guard let ts else { continue }
        if ts < 0 { problems.append("event \(index): negative ts") }
        let pid = event["pid"] as? Int ?? -1
        if ph == "X" || ph == "i" {
            let track = "\(pid)/\(event["tid"] as? Int ?? -1)"
            if let last = lastTs[track], ts < last { problems.append("event \(index): ts \(ts) before \(last) on thread track \(track)") }
            lastTs[track] = ts
        }
        if ph == "b" || ph == "e" {
            let key = "\(pid)/\(event["cat"] as? String ?? "")/\(event["id"] as? Int ?? -1)"
            var span = spans[key] ?? (0, 0, 0, 0)
            if ph == "b" {
                span.begins += 1
                span.beginTs = ts
            } else {
                span.ends += 1
                span.endTs = ts
                if span.begins == 0 { problems.append("event \(index): end of \(key) before its begin") }
            }
            spans[key] = span
        }
    }
    for (key, span) in spans.sorted(by: { $0.key < $1.key }) {
        if span.begins != 1 || span.ends != 1 {
            problems.append("span \(key): \(span.begins) begins, \(span.ends) ends")
        } else if span.endTs < span.beginTs {
            problems.append("span \(key): ends before it begins")
        }
    }
    return problems
}

@Test func validatorCatchesBrokenTraces() {
    let broken: [TraceEvent] = [
        ["name": "a", "ph": "X", "pid": 1, "tid": 1, "ts": 5.0, "cat": "delivery"],
        ["name": "b", "ph": "i", "pid": 1, "tid": 1, "ts": 4.0, "s": "t"],
        ["name": "c", "ph": "b", "pid": 1, "tid": 1, "ts": 1.0, "cat": "registration", "id": 7],
        ["name": "d", "ph": "e", "pid": 1, "tid": 1, "ts": 2.0, "cat": "registration", "id": 8],
    ]
    #expect(traceProblems(broken) == [
        "event 0 (X): missing or invalid 'dur'",
        "event 1: ts 4.0 before 5.0 on thread track 1/1",
        "event 3: end of 1/registration/8 before its begin",
        "span 1/registration/7: 1 begins, 0 ends",
        "span 1/registration/8: 0 begins, 1 ends",
    ])
    let backwards: [TraceEvent] = [
        ["name": "c", "ph": "b", "pid": 1, "tid": 1, "ts": 3.0, "cat": "scope", "id": 1],
        ["name": "c", "ph": "e", "pid": 1, "tid": 2, "ts": 2.0, "cat": "scope", "id": 1],
        ["name": "m", "ph": "M", "pid": 1, "tid": 0, "args": [String: Any]()],
    ]
    #expect(traceProblems(backwards) == ["event 2 (M): missing or invalid 'args'", "span 1/scope/1: ends before it begins"])
}

@Test func chromeTraceFollowsTheFormatsRules() throws {
    let (document, events) = try showcaseTrace()
    #expect(document["displayTimeUnit"] as? String == "ms")
    #expect(traceProblems(events) == [])
}

@Test func chromeTraceRoundTripsTheJournalsCounts() throws {
    let (_, events) = try showcaseTrace()
    func count(_ ph: String, _ cat: String? = nil) -> Int {
        events.count { $0["ph"] as? String == ph && (cat == nil || $0["cat"] as? String == cat) }
    }
    // The showcase: 46 events; 15 deliveries (one initial), 14 changes, 9 registrations.
    #expect(count("X", "delivery") == 15)
    #expect(count("i", "changed") == 14)
    #expect(count("i", "removed") == 3)
    #expect(count("i", "replaced") == 2)
    #expect(count("i", "skipped") == 1)
    #expect(count("i", "removeUnregistered") == 1)
    #expect(count("i", "gap") == 1)
    #expect(count("b", "registration") == 9)
    #expect(count("e", "registration") == 9)
    #expect(count("b", "scope") == 1)
    #expect(count("e", "scope") == 1)
    #expect(count("M") == 4)  // process name, process sort index, two thread names
    // Every journal event is in the trace once: as its X or i, else (registrations and
    // scopes) as the b or e it begins or ends.
    func seq(_ event: TraceEvent) -> Int? { (event["args"] as? [String: Any])?["seq"] as? Int }
    let timed = events.filter { ["X", "i"].contains($0["ph"] as? String) }.compactMap(seq)
    #expect(Set(timed).count == timed.count)
    let spanOnly = Set(events.filter { ["b", "e"].contains($0["ph"] as? String) }.compactMap(seq)).subtracting(timed)
    #expect(spanOnly.sorted() == [1, 6, 9, 10, 22, 23, 26, 36, 44])
    #expect((timed + spanOnly).sorted() == Array(1...46))
    // Leaked registrations end at the session's last event, said so.
    let leaked = events.filter { ($0["args"] as? [String: Any])?["ended"] as? String == "live at end" }
    #expect(leaked.compactMap { $0["id"] as? Int } == [4, 6, 8, 9])
    #expect(leaked.allSatisfy { $0["ts"] as? Double == 76000 })
}

@Test func chromeTraceNamesTheSessionAndThreadsAndTimesDeliveries() throws {
    let (_, events) = try showcaseTrace()
    let metadata = events.filter { $0["ph"] as? String == "M" && $0["name"] as? String != "process_sort_index" }
    let names = metadata.map { "\($0["name"]!) \($0["tid"]!) \(($0["args"] as! [String: Any])["name"]!)" }
    #expect(names == [
        "process_name 0 session 1: \(ShowcaseScenario.label) (ShowcaseApp, pid 4242)",
        "thread_name 1 thread 1 (main)",
        "thread_name 2 thread 2",
    ])
    func event(seq: Int, ph: String) throws -> TraceEvent {
        try #require(events.first { $0["ph"] as? String == ph && (($0["args"] as? [String: Any])?["seq"] as? Int) == seq })
    }
    // The slow delivery: recorded at 65 ms after running 30 ms.
    let slow = try event(seq: 35, ph: "X")
    #expect(slow["ts"] as? Double == 35000)
    #expect(slow["dur"] as? Double == 30000)
    #expect(slow["name"] as? String == "Uploader#7.progress → ProgressBar#8")
    let offMain = try event(seq: 33, ph: "X")
    #expect(offMain["tid"] as? Int == 2)
    #expect((offMain["args"] as? [String: Any])?["off_main"] as? Bool == true)
    let change = try event(seq: 24, ph: "i")
    #expect((change["args"] as? [String: Any])?["old"] as? String == ShowcaseScenario.hostileOld)
    #expect((change["args"] as? [String: Any])?["new"] as? String == ShowcaseScenario.hostileNew)
    // A callback (seq 31, 2.5 ms from 28.5 ms) comes before the events nested in it.
    let order = events.compactMap { ($0["args"] as? [String: Any])?["seq"] as? Int }.filter { (28...31).contains($0) }
    #expect(order == [28, 31, 29, 30])
    let span = try event(seq: 1, ph: "b")
    #expect(span["name"] as? String == "Player#1.isPlayingChanged")
    #expect((span["args"] as? [String: Any])?["owner"] as? String == "FloatingWindow#2")
    #expect((span["args"] as? [String: Any])?["function"] as? String == "viewDidLoad()")
}
