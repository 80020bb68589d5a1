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

    /// A message: `%`, CR, LF escaped.
    package static func data(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A property value: as `data`, plus `:` and `,`.
    package static func property(_ text: String) -> String {
        data(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
