/// Findings as JUnit XML, what CI systems without SARIF (Jenkins, GitLab, CircleCI, Azure
/// Pipelines…) show as test results: one `<testsuite>` per diagnosed session, one
/// `<testcase>` per enabled rule, failed when the session has a finding of that rule that
/// fails the gate (not baselined, at or above the threshold). Findings that do not fail it
/// are kept in the test case's `<system-out>`, so nothing is hidden.
///
/// Written in pieces (`head`, one `suite` per session, `tail`) so `diagnose` streams it
/// journal by journal. Text is escaped for XML 1.0: characters XML cannot carry at all
/// (most C0 controls) become `\u{…}` spellings.
package enum JUnitReport {
    /// What a finding is to the gate.
    package struct Verdict: Sendable, Equatable {
        package var fails: Bool
        package var baselined: Bool

        package init(fails: Bool, baselined: Bool) {
            self.fails = fails
            self.baselined = baselined
        }
    }

    package static let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"obsreplay diagnose\">\n"
    package static let tail = "</testsuites>\n"

    /// One session's suite: a test case per rule of `rules` (in catalog order), failed by
    /// the findings whose verdict fails.
    package static func suite(
        journal: String, session: Int64, rules: [Rule], findings: [(JournalFinding, Verdict)], locator: SourceLocator
    ) -> String {
        let name = "\(journal), session \(session)"
        // Jenkins and others split a class name at its last dot into package and class:
        // the journal is the package, the session the class.
        let classname = journal.replacingOccurrences(of: ".", with: "_") + ".session_\(session)"
        var cases = ""
        var failures = 0
        for rule in rules {
            let own = findings.filter { $0.0.finding.rule == rule }
            let failing = own.filter(\.1.fails)
            cases += "    <testcase name=\"\(attribute("\(rule.code) \(rule.name)"))\" classname=\"\(attribute(classname))\" time=\"0\""
            if own.isEmpty {
                cases += "/>\n"
                continue
            }
            cases += ">\n"
            if let first = failing.first?.0.finding {
                failures += 1
                let summary = failing.count == 1 ? first.message : "\(failing.count) findings; first: \(first.message)"
                cases += "      <failure message=\"\(attribute(summary))\" type=\"\(first.severity.rawValue)\">"
                cases += text(failing.map { describe($0.0, locator: locator) }.joined(separator: "\n\n")) + "</failure>\n"
            }
            let passing = own.filter { !$0.1.fails }
            if !passing.isEmpty {
                cases += "      <system-out>" + text(passing.map { item, verdict in
                    (verdict.baselined ? "(baselined) " : "") + describe(item, locator: locator)
                }.joined(separator: "\n\n")) + "</system-out>\n"
            }
            cases += "    </testcase>\n"
        }
        return "  <testsuite name=\"\(attribute(name))\" tests=\"\(rules.count)\" failures=\"\(failures)\" errors=\"0\" "
            + "skipped=\"0\" time=\"0\">\n" + cases + "  </testsuite>\n"
    }

    /// A finding as people read it in a CI's failure view: the short line, evidence, fix.
    static func describe(_ item: JournalFinding, locator: SourceLocator) -> String {
        let finding = item.finding
        return ([ShortFormat.lines([item], locator: locator)[0]] + finding.evidence.map { "    " + $0 }
            + ["  fix: " + finding.fix, "  fingerprint: " + finding.fingerprint]).joined(separator: "\n")
    }

    /// Text content: `&`, `<`, `>` escaped, and what XML 1.0 cannot hold spelled out.
    package static func text(_ value: String) -> String { escape(value, quotes: false) }

    /// An attribute value in double quotes: also `"`, and line breaks kept as references.
    package static func attribute(_ value: String) -> String { escape(value, quotes: true) }

    private static func escape(_ value: String, quotes: Bool) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quotes: out += "&quot;"
            case "\n" where quotes: out += "&#10;"
            case "\t" where quotes: out += "&#9;"
            case "\r": out += "&#13;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            case _ where TerminalText.needsEscape(scalar):
                // Bidi overrides and C1 controls are legal XML but mislead a reader: as the
                // terminal and JSON outputs do, they are spelled out.
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
