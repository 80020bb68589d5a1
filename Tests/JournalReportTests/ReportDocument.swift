import Foundation
import JournalAnalysis
import JournalFixtures
import JournalReport
import Testing
import TestSupport

/// The showcase journal's path (written once per call).
func showcaseJournal() throws -> String {
    let path = try temporaryDirectory().appendingPathComponent("showcase.sqlite").path
    try ShowcaseScenario.write(to: path)
    return path
}

/// A rendered report read back the way its script reads it: the page's data, and each
/// session's events decoded with the layout the page carries.
struct ReportDocument {
    /// One decoded event row.
    struct Row {
        var kind: String
        var seq: Int
        var micros: Int
        var fields: [String: Int]
    }

    /// One session's data.
    struct Session {
        var json: [String: Any]
        var rows: [Row]
        var strings: [String]
        var lanes: [[Int]]
        var channels: [[Int]]

        func text(_ index: Int) -> String? { index > 0 ? strings[index - 1] : nil }
        func rows(_ kind: String) -> [Row] { rows.filter { $0.kind == kind } }
        /// The seqs of rows whose flags have `bit`.
        func seqs(flag bit: Int) -> [Int] { rows.filter { $0.fields["flags"]! & bit != 0 }.map(\.seq) }
        var channelNames: [String] { channels.map { text($0[1]) ?? "?" } }
    }

    let html: String
    let data: [String: Any]
    let sessions: [Session]

    /// The text between `<script type="application/json" id="report-data">` and `</script>`.
    static func dataText(_ html: String) throws -> String {
        let open = "<script type=\"application/json\" id=\"report-data\">"
        let start = try #require(html.range(of: open))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        return String(html[start.upperBound..<end.lowerBound])
    }

    init(html: String) throws {
        self.html = html
        data = try #require(try JSONSerialization.jsonObject(with: Data(try Self.dataText(html).utf8)) as? [String: Any])
        let layout = try #require(data["layout"] as? [String: Any])
        let kinds = try #require(layout["kinds"] as? [[String: Any]])
        sessions = try (try #require(data["sessions"] as? [[String: Any]])).map { session in
            let ev = try #require(session["ev"] as? [Int])
            var rows: [Row] = []
            var index = 0, seq = 0, micros = 0
            for _ in 0..<(try #require(session["rows"] as? Int)) {
                let kind = kinds[ev[index]]
                seq += ev[index + 1]
                micros += ev[index + 2]
                var fields = ["thread": ev[index + 3], "flags": ev[index + 4]]
                index += 5
                for name in try #require(kind["fields"] as? [String]) {
                    fields[name] = ev[index]
                    index += 1
                }
                rows.append(Row(kind: try #require(kind["name"] as? String), seq: seq, micros: micros, fields: fields))
            }
            #expect(index == ev.count)
            return Session(
                json: session, rows: rows, strings: try #require(session["strings"] as? [String]),
                lanes: try #require(session["lanes"] as? [[Int]]), channels: try #require(session["channels"] as? [[Int]])
            )
        }
    }

    /// How many times `fragment` occurs in the page.
    func count(_ fragment: String) -> Int { html.components(separatedBy: fragment).count - 1 }

    /// The flag bit named `name` in the page's layout.
    func flag(_ name: String) throws -> Int {
        try #require(((data["layout"] as? [String: Any])?["flags"] as? [String: Int])?[name])
    }
}
