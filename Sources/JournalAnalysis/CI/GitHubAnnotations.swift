/// Findings as GitHub Actions workflow commands (`::error file=…,line=…,title=…::message`),
/// which GitHub shows as annotations on the pull request's lines.
///
/// Escaped as GitHub's runner requires: in the message `%`, CR and LF; in properties also
/// `:` and `,`.
package enum GitHubAnnotations {
    /// One workflow command per finding.
    package static func lines(_ findings: [JournalFinding], locator: SourceLocator) -> [String] {
        findings.map { line($0, locator: locator) }
    }

    static func line(_ item: JournalFinding, locator: SourceLocator) -> String {
        let finding = item.finding
        let command: String
        switch finding.severity {
        case .error: command = "error"
        case .warning: command = "warning"
        case .info: command = "notice"
        }
        var properties: [String] = []
        if let location = finding.callSites.first.flatMap(locator.locate) {
            properties.append("file=\(property(location.path))")
            properties.append("line=\(location.line)")
        }
        properties.append("title=\(property("\(finding.rule.code) \(finding.rule.name)"))")
        var message = finding.message + "\n" + "(\(item.journal), session \(finding.sessionID), fingerprint \(finding.fingerprint))"
        for line in finding.evidence { message += "\n" + line }
        message += "\nfix: " + finding.fix
        return "::\(command) \(properties.joined(separator: ","))::\(data(message))"
    }

    /// A message: `%`, CR, LF percent-encoded as the runner decodes them; every other
    /// control, bidi or invisible character (`TerminalText.needsEscape`) shown as a
    /// visible `\u{1B}`, because the runner writes the message into the job's log and a
    /// terminal would act on it.
    ///
    /// Decided per Unicode scalar, never per `Character`: the runner reads bytes, so a
    /// `,` that Swift sees inside one grapheme cluster with a combining mark after it is
    /// still a `,` to the runner.
    package static func data(_ text: String) -> String {
        escaped(text, properties: false)
    }

    /// A property value: as `data`, plus `:` and `,`, which end a property.
    package static func property(_ text: String) -> String {
        escaped(text, properties: true)
    }

    private static func escaped(_ text: String, properties: Bool) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            case ":" where properties: out += "%3A"
            case "," where properties: out += "%2C"
            case _ where TerminalText.needsEscape(scalar):
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
