import Foundation
import JournalFixtures
import ObservationJournal
import ObserverCore
import Testing
import TestSupport

/// Text an app may record that must not hurt whoever reads the journal: terminal escape
/// sequences, other control characters, bidirectional overrides, NUL bytes, a megabyte,
/// invalid UTF-8 (repaired by `String(cString:)`), quotes and SQL.
enum Hostile {
    /// `String(cString:)` of bytes that are not UTF-8: Swift repairs them with U+FFFD.
    static let fromCString: String = {
        let bytes: [UInt8] = [0x66, 0xFF, 0xFE, 0x6F, 0xC3, 0x28, 0x00]
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { String(cString: $0.baseAddress!) }
        }
    }()

    /// Every hostile string, each unique so it can be found again.
    static let values: [String] = [
        "\u{1B}[31mred\u{1B}[0m",
        "\u{1B}]0;window title\u{07}",
        "\u{1B}[2J\u{1B}[Hcleared",
        "\u{9B}31mC1 CSI",
        "line\nbreak\r\nand\rreturn\ttab",
        "back\u{08}space and del\u{7F}",
        "\u{202E}evil\u{202C} and \u{2066}isolate\u{2069}",
        "zero\u{200B}width\u{FEFF}",
        "nul\u{0}inside",
        "nul\u{0}other",
        fromCString,
        "'; DROP TABLE events; --",
        "Robert\"); DROP TABLE sessions;--",
        "=HYPERLINK(\"http://x\")",
        "-1+1",
        "a,b\"c\"\u{2028}d",
    ]

    /// A megabyte of text, with an escape in the middle.
    static let megabyte = String(repeating: "m", count: 500_000) + "\u{1B}[5m" + String(repeating: "M", count: 500_000)

    /// Scalars that must never reach a terminal raw.
    static func isUnsafeOnTerminal(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A: return false
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2069, 0xFEFF: return true
        default: return false
        }
    }
}

final class HostileSubject {}
final class HostileScreen {}

@Suite struct HostileValueTests {
    /// Records every hostile string as a key, a value, a notification name, a payload, a
    /// scope name, a call site and the session label.
    func record(into path: String) throws {
        let options = Journal.Options(values: ValueRecording(maxLength: 2_000_000))
        let recording = try Journal.open(path: path, options: options)
            .startSession(label: "hostile \u{1B}[31m label")
        let registry = recording.registry
        let subject = HostileSubject()
        let screen = HostileScreen()
        var tokens: [ObservationToken] = []
        // The megabyte as a key and a value only: in every call site too it would make
        // every timeline line a megabyte long.
        let big = ObservableValue("start", subject: subject, key: "big " + Hostile.megabyte, registry: registry)
        tokens.append(big.observe(owner: screen) { _, _ in })
        big.value = Hostile.megabyte
        for (index, text) in Hostile.values.enumerated() {
            let value = ObservableValue("start", subject: subject, key: "k\(index) " + text, registry: registry)
            tokens.append(value.observe(owner: screen, file: "File\(index) \(text).swift", line: index, function: text) { _, _ in })
            value.value = text
            tokens.append(registry.observe(notification: "n\(index) " + text, owner: screen) { _, _ in })
            registry.post(notification: "n\(index) " + text, payload: text)
            let scope = registry.beginScope(text)
            scope.end()
            // A misspelled removal and a key never posted, for diagnose to report.
            registry.removeObservers(owner: screen, subject: subject, key: "typo\(index) " + text)
            tokens.append(registry.observe(notification: "never\(index) " + text, owner: screen) { _, _ in })
        }
        // last-callback-wins on a hostile single-slot channel.
        let slot = CallbackProperty<String>(subject: subject, key: Hostile.values[0], registry: registry)
        let first = HostileScreen(), second = HostileScreen()
        slot.assign(owner: first) { _, _ in }
        slot.assign(owner: second) { _, _ in }
        slot.call(Hostile.values[1])
        recording.close()
        _ = (tokens, first, second)
        #expect(recording.counters.unwritten == 0)
    }

    @Test func journalStoresHostileTextExactly() throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("hostile.sqlite").path
        try record(into: path)
        let reader = try SQLiteDatabase(path: path, mode: .readOnly)
        // Every value came back byte for byte (and the tables the SQL-looking ones name are there).
        let statement = try reader.prepare("SELECT new_value FROM events WHERE kind = (SELECT code FROM event_kinds WHERE name = 'changed') ORDER BY seq")
        var stored: [String] = []
        while try statement.step() { stored.append(statement.text(0)) }
        for text in Hostile.values + [Hostile.megabyte] {
            #expect(stored.contains(text), "value not stored exactly: \(text.debugDescription.prefix(80))")
        }
        let keys = try reader.prepare("SELECT value FROM strings")
        var strings = Set<String>()
        while try keys.step() { strings.insert(keys.text(0)) }
        for (index, text) in Hostile.values.enumerated() {
            #expect(strings.contains("k\(index) " + text), "key not stored exactly: \(text.debugDescription)")
            #expect(strings.contains(text), "scope or function name not stored exactly: \(text.debugDescription)")
        }
        #expect(try reader.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name IN ('events', 'sessions')") == 2)
    }

    @Test(.tags(.childProcess)) func humanOutputNeverCarriesRawControlOrBidiCharacters() throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("hostile.sqlite").path
        try record(into: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let commands: [[String]] = [
            ["sessions"], ["timeline"], ["diagnose", "--fail-on", "never"], ["replay", "--at", "40"], ["stats"],
            ["check"], ["timeline", "--key", "k11 " + Hostile.values[11]],
        ]
        for command in commands {
            let result = try obsreplay([command[0], path] + command.dropFirst())
            #expect(result.status == 0, "\(command): \(result.stderr)")
            let unsafe = result.stdout.unicodeScalars.filter(Hostile.isUnsafeOnTerminal)
            #expect(unsafe.isEmpty, "\(command) printed \(unsafe.map { String($0.value, radix: 16) })")
            #expect(result.stderr.unicodeScalars.filter(Hostile.isUnsafeOnTerminal).isEmpty, "\(command) stderr")
        }
        // The escapes are shown, not dropped: a person can see what was recorded.
        let timeline = try obsreplay(["timeline", path]).stdout
        #expect(timeline.contains("\\u{1B}[31mred\\u{1B}[0m"))
        #expect(timeline.contains("\\u{202E}evil\\u{202C}"))
        #expect(timeline.contains("nul\\u{0}inside"))
        let diagnosis = try obsreplay(["diagnose", path, "--fail-on", "never"]).stdout
        #expect(diagnosis.contains("k11 '; DROP TABLE events; --"))
        #expect(diagnosis.contains("\\u{1B}[31mred"))
        // A filter with quotes and SQL in it is a value, not SQL: it finds exactly its channel.
        let filtered = try obsreplay(["timeline", path, "--key", "k11 " + Hostile.values[11], "--json"])
        #expect(filtered.status == 0)
        #expect(filtered.stdout.split(separator: "\n").count == 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test(.tags(.childProcess)) func exportsRoundTripHostileText() throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("hostile.sqlite").path
        try record(into: path)
        var files: [String] = []
        for what in ["events", "registrations", "deliveries", "findings"] {
            for format in ["csv", "jsonl"] {
                let file = directory.appendingPathComponent("\(what).\(format)").path
                var arguments = ["export", path, "--what", what, "--format", format, "-o", file]
                if format == "csv" { arguments.append("--raw") }
                let result = try obsreplay(arguments)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                files.append(file)
            }
        }
        // Python's csv and json modules read every file back; each prints its cells.
        let cells = try PythonReader.cells(of: files)
        let events = try #require(cells[directory.appendingPathComponent("events.csv").path])
        let eventsJSON = try #require(cells[directory.appendingPathComponent("events.jsonl").path])
        for text in Hostile.values + [Hostile.megabyte] {
            #expect(events.contains(text), "CSV lost \(text.debugDescription.prefix(60))")
            #expect(eventsJSON.contains(text), "JSON lost \(text.debugDescription.prefix(60))")
        }
        let registrations = try #require(cells[directory.appendingPathComponent("registrations.csv").path])
        let registrationsJSON = try #require(cells[directory.appendingPathComponent("registrations.jsonl").path])
        for (index, text) in Hostile.values.enumerated() {
            #expect(registrations.contains(text), "CSV lost function name \(text.debugDescription)")
            #expect(registrationsJSON.contains(text), "JSON lost function name \(text.debugDescription)")
            #expect(registrations.contains { $0.hasSuffix(".k\(index) " + text) }, "CSV lost key \(text.debugDescription)")
        }
        let findings = try #require(cells[directory.appendingPathComponent("findings.jsonl").path])
        #expect(findings.contains { $0.contains("k11 '; DROP TABLE events; --") })
    }

    /// A journal written by something else, with text that is not UTF-8 at all: output is
    /// valid UTF-8 (the bytes repaired), escaped on the terminal and parseable as JSON.
    @Test(.tags(.childProcess)) func invalidUTF8InAJournalIsRepairedNotPassedOn() throws {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("bytes.sqlite").path
        let fixture = try JournalFixture(path: path)
        let session = try fixture.session(label: "bytes")
        let channel = try session.channel(try session.object("Player"), "k")
        try session.register(channel, owner: try session.object("Screen"), at: "S.swift:1")
        try session.post(channel, old: "a", new: "b")
        try fixture.finish()
        try JournalFixture.edit(path, """
            UPDATE events SET new_value = CAST(X'66FF1B5B33316D80C0AF' AS TEXT) WHERE kind = (SELECT code FROM event_kinds WHERE name = 'changed');
            UPDATE strings SET value = CAST(X'6BFE9B' AS TEXT) WHERE value = 'k';
            """)
        let timeline = try obsreplay(["timeline", path])
        #expect(timeline.status == 0)
        #expect(timeline.stdout.unicodeScalars.filter(Hostile.isUnsafeOnTerminal).isEmpty)
        #expect(timeline.stdout.contains("f\u{FFFD}\\u{1B}[31m"))
        let file = directory.appendingPathComponent("events.jsonl").path
        #expect(try obsreplay(["export", path, "--what", "events", "--format", "jsonl", "-o", file]).status == 0)
        let cells = try PythonReader.cells(of: [file])
        #expect(cells[file]?.contains("f\u{FFFD}\u{1B}[31m\u{FFFD}\u{FFFD}\u{FFFD}") == true)
    }
}

/// Reads CSV and JSON Lines files with Python's own modules, as a consumer would.
enum PythonReader {
    static let script = """
        import csv, json, sys
        csv.field_size_limit(sys.maxsize)
        result = {}
        for path in sys.argv[1:]:
            cells = []
            with open(path, newline='', encoding='utf-8', errors='strict') as f:
                if path.endswith('.csv'):
                    for row in csv.reader(f, strict=True):
                        cells.extend(row)
                else:
                    for line in f:
                        record = json.loads(line)
                        cells.extend(str(v) for v in record.values() if v is not None)
            result[path] = cells
        json.dump(result, sys.stdout)
        """

    /// Every cell of every file, by path.
    static func cells(of files: [String]) throws -> [String: Set<String>] {
        let output = try ChildProcess.output(ChildProcess.env, ["python3", "-c", script] + files)
        let decoded = try JSONDecoder().decode([String: [String]].self, from: Data(output.utf8))
        return decoded.mapValues(Set.init)
    }
}
