import Foundation
import JournalAnalysis
import JournalStore
import Testing
import TestSupport

@Test func csvQuotesFieldsThatNeedItAndEndsLinesWithCRLF() {
    let csv = CSVWriter()
    #expect(csv.header(["a", "b,c"]) == "a,\"b,c\"\r\n")
    #expect(csv.record([.text("plain"), .text("say \"hi\""), .text("two\nlines"), .int(-3), .int(nil), .bool(true), .text(nil)])
        == "plain,\"say \"\"hi\"\"\",\"two\nlines\",-3,,true,\r\n")
}

@Test func csvNeutralisesFormulasUnlessRaw() {
    let cells: [ExportCell] = [.text("=SUM(A1)"), .text("+1+1"), .text("-2-A1"), .text("@x"), .text("\tx"), .text("\rx"), .text("a=b")]
    #expect(CSVWriter().record(cells) == "'=SUM(A1),'+1+1,'-2-A1,'@x,'\tx,\"'\rx\",a=b\r\n")
    #expect(CSVWriter(raw: true).record(cells) == "=SUM(A1),+1+1,-2-A1,@x,\tx,\"\rx\",a=b\r\n")
    // Plain numbers are numbers to a spreadsheet, never formulas: written as they are.
    let numbers: [ExportCell] = [.text("-3"), .text("+1.5"), .text("-2e3"), .text("-.5"), .text("-"), .text("-1e"), .text("--1")]
    #expect(CSVWriter().record(numbers) == "-3,+1.5,-2e3,-.5,'-,'-1e,'--1\r\n")
}

@Test func jsonEscapesControlCharactersAndKeepsKeyOrder() {
    let value = JSONValue.object([
        ("b", .string("q\"\\\n\u{1B}é")), ("a", .array([.int(1), .null, .bool(false)])), ("c", .text(nil)),
    ])
    #expect(value.rendered == "{\"b\":\"q\\\"\\\\\\n\\u001bé\",\"a\":[1,null,false],\"c\":null}")
}

/// Values a spreadsheet or a naive CSV reader gets wrong.
let awkwardValues = ["a,b", "say \"hi\"", "two\nlines", "crlf\r\nhere", "Grüße, 東京 🎉", "=HYPERLINK(\"http://x\")", "-1+2", ""]

/// Loads `path` with Python's `csv` module and returns its rows.
func pythonCSVRows(_ path: String) throws -> [[String]] {
    let output = try ChildProcess.output(ChildProcess.env, [
        "python3", "-c",
        "import csv, json, sys\nwith open(sys.argv[1], newline='', encoding='utf-8') as f:\n    print(json.dumps(list(csv.reader(f, strict=True))))",
        path,
    ])
    return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String]] ?? []
}

@Test(.tags(.childProcess), arguments: [false, true])
func csvExportRoundTripsThroughPythonsCSVReader(raw: Bool) throws {
    let (reader, _) = try journal { s in
        let player = try s.object("Player")
        let title = try s.channel(player, "title, \"main\"")
        try s.register(title, owner: try s.object("Screen"), at: "Screen.swift:1")
        for (index, value) in awkwardValues.enumerated() {
            try s.post(title, old: index == 0 ? nil : awkwardValues[index - 1], new: value)
        }
    }
    let path = try temporaryDirectory().appendingPathComponent("events.csv").path
    let output = StringOutput()
    try Exporter.export(.events, from: reader, session: nil, format: .csv, raw: raw, to: output)
    try output.text.write(toFile: path, atomically: true, encoding: .utf8)

    let rows = try pythonCSVRows(path)
    #expect(rows.first == Exporter.columns(for: .events) + ["journal_id", "host", "run"])
    let changes = rows.dropFirst().filter { $0[3] == "changed" }
    let column = try #require(Exporter.columns(for: .events).firstIndex(of: "new_value"))
    let expected = awkwardValues.map { value in raw ? value : CSVWriter().neutralised(value) }
    #expect(changes.map { $0[column] } == expected)
    #expect(expected[5] == (raw ? "=HYPERLINK(\"http://x\")" : "'=HYPERLINK(\"http://x\")"))
    #expect(changes.first?[7] == "Player#1.title, \"main\"")
    // 1 registration + 8 changes with 1 delivery each, and a header.
    #expect(rows.count == 1 + 1 + 16)
    #expect(rows.allSatisfy { $0.count == Exporter.columns(for: .events).count + 3 })
    #expect(rows.dropFirst().allSatisfy { $0.suffix(3) == [try! reader.journalID(), "testhost", ""] })
}

@Test func jsonLinesExportHasOneObjectPerRowWithStableKeys() throws {
    let (reader, _) = try journal(threeAssigners)
    let output = StringOutput()
    try Exporter.export(.registrations, from: reader, session: 1, format: .jsonl, raw: false, to: output)
    let lines = output.text.split(separator: "\n")
    #expect(lines.count == 3)
    #expect(lines[0] == """
        {"session_id":1,"id":1,"channel_id":1,"channel":"Player#1.isPlayingChanged","policy":"singleSlot","owner_id":2,"owner":"FloatingWindow#2","call_site":"App/FloatingWindow.swift:31","function":"f()","options":"new","queue":null,"expects_main":false,"sender":null,"scope_id":null,"scope":null,"registered_seq":1,"removed_seq":17,"removal_reason":"replaced",\
        "journal_id":"\(try reader.journalID())","host":"testhost","run":null}
        """)
}

@Test func deliveriesExportNamesTheChangeEachDeliveryBelongsTo() throws {
    let (reader, _) = try journal(threeAssigners)
    let output = StringOutput()
    try Exporter.export(.deliveries, from: reader, session: 1, format: .csv, raw: false, to: output)
    let lines = output.text.components(separatedBy: "\r\n")
    #expect(lines[0] == "session_id,seq,time_ns,kind,change_seq,channel_id,channel,registration_id,owner_id,owner,call_site,thread,is_main,expects_main,depth,duration_ns,reason,initial_value,journal_id,host,run")
    #expect(lines[1] == "1,3,3000000,delivered,2,1,Player#1.isPlayingChanged,1,2,FloatingWindow#2,App/FloatingWindow.swift:31,1,true,false,0,100000,,,\(try reader.journalID()),testhost,")
    #expect(lines.count == 1 + 19 + 1)  // header, 19 deliveries, the empty string after the last CRLF
}

@Test func findingsExportCarriesCodesAndEvidence() throws {
    let (reader, _) = try journal(threeAssigners)
    let output = StringOutput()
    try Exporter.export(.findings, from: reader, session: nil, format: .jsonl, raw: false, to: output)
    let lines = output.text.split(separator: "\n").map(String.init)
    #expect(lines.count == 3)
    #expect(lines[0].hasPrefix("{\"session_id\":1,\"code\":\"OJ001\",\"name\":\"last-callback-wins\",\"severity\":\"error\",\"message\":\"3 owners assigned Player#1.isPlayingChanged; FloatingWindow#2 (FloatingWindow.swift:31) was replaced at seq 17 while alive and missed 12 changes.\",\"channel\":\"Player#1.isPlayingChanged\",\"owners\":[\"FloatingWindow#2\",\"VideoScreen#3\"],\"call_sites\":[\"App/FloatingWindow.swift:31\",\"App/VideoScreen.swift:20\"],\"seqs\":[1,17],\"count\":12,\"evidence\":[\"seq 1: "))
    #expect(lines[2].contains("\"code\":\"OJ004\""))
    // JSON Lines lists are JSON arrays (DuckDB and ClickHouse read them as lists); CSV
    // keeps each list in one cell.
    let csv = StringOutput()
    try Exporter.export(.findings, from: reader, session: nil, format: .csv, raw: false, to: csv)
    #expect(csv.text.components(separatedBy: "\r\n")[1].contains(
        ",Player#1.isPlayingChanged,FloatingWindow#2; VideoScreen#3,App/FloatingWindow.swift:31; App/VideoScreen.swift:20,1 17,12,\"seq 1: "
    ))
}

/// What the export shows of each stored column of `events`: its name, or the names
/// `event_log` decodes it to.
private func exportedNames(of column: EventColumn) -> [String] {
    switch column {
    case .flags: return ["is_main", "is_prior", "main_queue", "depth"]
    case .changeBack: return ["change_seq"]
    case .callSiteID: return ["call_site"]
    default: return [column.name]
    }
}

/// Every column `events` and `event_details` store and every column of the view `event_log`
/// is in the events export: a column added to a table or the view and not exported fails here.
@Test func theEventsExportHasEveryStoredColumnAndEveryColumnOfTheLog() throws {
    let (reader, _) = try journal { s in _ = try s.object("Player") }
    let exported = Exporter.columns(for: .events)
    for column in EventColumn.allCases {
        for name in exportedNames(of: column) { #expect(exported.contains(name), "events.\(column.name)") }
    }
    for column in EventDetailColumn.allCases { #expect(exported.contains(column.name), "event_details.\(column.name)") }
    let database = try SQLiteDatabase(path: reader.path, mode: .readOnly)
    let log = try database.prepare("SELECT name FROM pragma_table_info('event_log')")
    var logColumns: [String] = []
    while try log.step() { logColumns.append(log.text(0)) }
    #expect(logColumns.count == 25)
    #expect(logColumns.filter { !exported.contains($0) } == [])
}

/// The facts recorded since schema 1 are exported with the rest: the main queue, CPU time,
/// waits, the change delivered and the wait for a CPU.
@Test func theEventsExportShowsEveryRecordedFactOfADelivery() throws {
    let (reader, _) = try journal { s in
        let player = try s.object("Player")
        let title = try s.channel(player, "title")
        let registration = try s.register(title, owner: try s.object("Screen"), at: "Screen.swift:1")
        let change = try s.change(title, old: "a", new: "b")
        try s.event(
            .delivered, channel: title, registration: registration, owner: 2, duration: 5_000, mainQueue: false,
            cpu: 4_000, waits: 3, changeSeq: change, runQueue: 700
        )
    }
    let output = StringOutput()
    try Exporter.export(.events, from: reader, session: 1, format: .jsonl, raw: false, to: output)
    let lines = output.text.split(separator: "\n")
    #expect(lines.count == 3)
    #expect(lines.last == """
        {"session_id":1,"seq":3,"time_ns":3000000,"kind":"delivered","thread":1,"is_main":true,"channel_id":1,\
        "channel":"Player#1.title","registration_id":1,"owner_id":2,"owner":"Screen#2","other_registration_id":null,\
        "call_site":null,"scope_id":null,"depth":0,"live_count":null,"duration_ns":5000,"is_prior":false,\
        "old_value":null,"new_value":null,"reason":null,"detail":null,"main_queue":false,"cpu_ns":4000,"waits":3,\
        "change_seq":2,"run_queue_ns":700,"journal_id":"\(try reader.journalID())","host":"testhost","run":null}
        """)
    // A registration has no main queue recorded: null, not false.
    #expect(lines.first?.contains("\"main_queue\":null,") == true)
}
