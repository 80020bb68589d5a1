import Foundation

/// Findings as a SARIF 2.1.0 log (one run), for code-scanning UIs (GitHub code scanning,
/// the VS Code SARIF viewer, Azure DevOps).
///
/// The rule catalog is `tool.driver.rules` (with `diagnose --explain`'s text as help and
/// a link to the rule in docs/RULES.md); each finding is a result whose first call site is
/// its location and whose other call sites are related locations, with the finding's
/// fingerprint (and the hash of its call-site lines, when found) in `partialFingerprints`.
/// With a baseline, every finding is a result, `baselineState` `new` or `unchanged`.
/// `invocations` says whether the run read every journal and its exit code.
/// Paths are relative to the source root, named by `originalUriBaseIds.SRCROOT`.
package enum SARIFLog {
    /// The key of the fingerprint in `partialFingerprints` (version 2: no line numbers).
    package static let fingerprintKey = "obsreplayFingerprint/v2"
    /// The key of `FindingFingerprint.sourceHash` in `partialFingerprints`.
    package static let sourceKey = "obsreplaySourceLine/v1"
    /// Where the package is published: `informationUri`, and the base of each rule's
    /// `helpUri` (`docs/RULES.md#oj001`, an anchor per rule).
    package static let homepage = "https://github.com/observationjournal/ObservationJournal"

    /// How the run ended, for `invocations`.
    package struct Invocation: Sendable, Equatable {
        /// Every journal was read to the end (findings are not a failure).
        package var successful: Bool
        package var exitCode: Int32

        package init(successful: Bool, exitCode: Int32) {
            self.successful = successful
            self.exitCode = exitCode
        }
    }

    /// The documentation of `rule`: its anchor in docs/RULES.md.
    package static func helpURI(_ rule: Rule) -> String {
        "\(homepage)/blob/main/docs/RULES.md#\(rule.code.lowercased())"
    }

    /// The SARIF document. `severities` are the rules' default levels after
    /// configuration (a rule not in it uses its catalog severity). `baselineStates`:
    /// each finding's `baselineState` (`new`, `unchanged`), when a baseline was given.
    package static func document(
        _ findings: [JournalFinding], locator: SourceLocator, toolVersion: String, severities: [Rule: Severity] = [:],
        baselineStates: [String]? = nil, invocation: Invocation
    ) -> JSONValue {
        let rules = Rule.allCases
        let ruleIndex = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($1, $0) })
        let driver = JSONValue.object([
            ("name", .string("obsreplay")), ("version", .string(toolVersion)), ("informationUri", .string(homepage)),
            ("rules", .array(rules.map { rule($0, severity: severities[$0] ?? $0.severities[0]) })),
        ])
        let rootURI = URL(fileURLWithPath: locator.root).standardizedFileURL.absoluteString
        let results = findings.enumerated().map { index, item in
            result(item, ruleIndex: ruleIndex[item.finding.rule] ?? 0, locator: locator, baselineState: baselineStates?[index])
        }
        let run = JSONValue.object([
            ("tool", .object([("driver", driver)])),
            ("originalUriBaseIds", .object([("SRCROOT", .object([("uri", .string(rootURI.hasSuffix("/") ? rootURI : rootURI + "/"))]))])),
            ("results", .array(results)),
            ("invocations", .array([.object([
                ("executionSuccessful", .bool(invocation.successful)), ("exitCode", .int(Int64(invocation.exitCode))),
            ])])),
        ])
        return .object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")), ("version", .string("2.1.0")),
            ("runs", .array([run])),
        ])
    }

    static func level(_ severity: Severity) -> String {
        switch severity {
        case .error: return "error"
        case .warning: return "warning"
        case .info: return "note"
        }
    }

    static func rule(_ rule: Rule, severity: Severity) -> JSONValue {
        .object([
            ("id", .string(rule.code)), ("name", .string(rule.name)),
            ("shortDescription", .object([("text", .string(rule.summary))])),
            ("fullDescription", .object([("text", .string(rule.summary + " Fix: " + rule.fix))])),
            ("defaultConfiguration", .object([("level", .string(level(severity)))])),
            ("help", .object([("text", .string(rule.explanation))])), ("helpUri", .string(helpURI(rule))),
        ])
    }

    static func location(_ site: String, locator: SourceLocator, id: Int? = nil, message: String? = nil) -> JSONValue? {
        guard let place = locator.locate(site), place.line >= 1 else { return nil }
        var members: [(String, JSONValue)] = []
        if let id { members.append(("id", .int(Int64(id)))) }
        members.append(("physicalLocation", .object([
            ("artifactLocation", .object([("uri", .string(uriPath(place.path))), ("uriBaseId", .string("SRCROOT"))])),
            ("region", .object([("startLine", .int(Int64(place.line)))])),
        ])))
        if let message { members.append(("message", .object([("text", .string(message))]))) }
        return .object(members)
    }

    /// A relative path as a URI reference: each segment percent-encoded.
    static func uriPath(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ":?#[]@")
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { String($0).addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0) }
            .joined(separator: "/")
    }

    /// One result (a finding) of the log; `baselineState` (`new`, `unchanged`) when a
    /// baseline was given.
    package static func result(_ item: JournalFinding, locator: SourceLocator, baselineState: String? = nil) -> JSONValue {
        result(item, ruleIndex: Rule.allCases.firstIndex(of: item.finding.rule) ?? 0, locator: locator, baselineState: baselineState)
    }

    static func result(_ item: JournalFinding, ruleIndex: Int, locator: SourceLocator, baselineState: String?) -> JSONValue {
        let finding = item.finding
        var members: [(String, JSONValue)] = [
            ("ruleId", .string(finding.rule.code)), ("ruleIndex", .int(Int64(ruleIndex))),
            ("level", .string(level(finding.severity))), ("message", .object([("text", .string(finding.message))])),
        ]
        if let first = finding.callSites.first, let primary = location(first, locator: locator) {
            members.append(("locations", .array([primary])))
        }
        var related: [JSONValue] = []
        for (index, site) in finding.callSites.dropFirst().enumerated() {
            let short = site.split(separator: "/").last.map(String.init) ?? site
            let evidence = finding.evidence.first { $0.contains(short) } ?? "call site \(short)"
            if let location = location(site, locator: locator, id: index + 1, message: evidence) { related.append(location) }
        }
        if !related.isEmpty { members.append(("relatedLocations", .array(related))) }
        var fingerprints: [(String, JSONValue)] = [(fingerprintKey, .string(finding.fingerprint))]
        if let source = FindingFingerprint.sourceHash(of: finding, locator: locator) {
            fingerprints.append((sourceKey, .string(source)))
        }
        members.append(("partialFingerprints", .object(fingerprints)))
        if let baselineState { members.append(("baselineState", .string(baselineState))) }
        members.append(("properties", .object([
            ("journal", .string(item.journal)), ("session_id", .int(finding.sessionID)), ("name", .string(finding.rule.name)),
            ("channel", .text(finding.channel)), ("owners", .array(finding.owners.map(JSONValue.string))),
            ("seqs", .array(finding.seqs.map(JSONValue.int))), ("count", .int(Int64(finding.count))),
            ("evidence", .array(finding.evidence.map(JSONValue.string))), ("fix", .string(finding.fix)),
        ])))
        return .object(members)
    }
}
