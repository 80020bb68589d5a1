import SystemShim
import Foundation

/// A team's settings for `diagnose`, read from `.obsreplay.json` (found from the current
/// directory upward to the project's root, `find(from:)`) or `--config FILE`:
///
/// ```json
/// {
///   "rules": { "OJ007": { "enabled": false }, "slow-callback": { "severity": "info" } },
///   "budget-ms": 33,
///   "ignore-call-sites": ["ThirdParty/*", "Pods/*"]
/// }
/// ```
///
/// Rules are named by code or name, checked against the rule catalog. An ignored call
/// site glob (`fnmatch`, `*` also matches `/`) is matched against the call site's file,
/// `Module/File.swift`; a finding is dropped when every call site it names is ignored.
package struct DiagnosisConfiguration: Sendable, Equatable {
    /// The configuration file's name, looked for in the current directory and upward.
    package static let fileName = ".obsreplay.json"
    /// The top-level keys, in the order the documentation lists them.
    package static let keys = ["rules", "budget-ms", "ignore-call-sites"]
    /// The keys of one rule's settings.
    package static let ruleKeys = ["enabled", "severity"]

    /// Rules turned off (`"enabled": false`): their findings are dropped.
    package var disabled: Set<Rule> = []
    /// Rules whose findings get another severity (`"severity": "info"`).
    package var severities: [Rule: Severity] = [:]
    /// The slow-callback budget; `--budget-ms` on the command line wins.
    package var budgetMs: Int64?
    /// `fnmatch` globs on `Module/File.swift` (or `Module/File.swift:42`).
    package var ignoredCallSites: [String] = []
    /// Where it was read from (nil: no file).
    package var path: String?

    package init() {}

    // MARK: - Reading

    /// The configuration at `path`.
    /// - Throws: `ConfigurationError`: unreadable or not JSON (`.unusable`, exit 2), an
    ///   unknown key, rule or value (`.invalid`, exit 64, with a did-you-mean).
    package static func load(path: String) throws(ConfigurationError) -> DiagnosisConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unusable(path: path, detail: "cannot read it")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .unusable(path: path, detail: "not valid JSON")
        }
        var configuration = try parse(object, path: path)
        configuration.path = path
        return configuration
    }

    /// What looking for `.obsreplay.json` found.
    package enum Lookup: Equatable, Sendable {
        /// No file in the directories searched.
        case none
        /// The nearest file, safe to apply.
        case found(String)
        /// The nearest file, not applied: someone else could have put it there or changed
        /// it (`reason` says how); the search stops there.
        case ignored(String, reason: String)
    }

    /// The directory entries that end the upward search: the root of a project (a Swift
    /// package, a git work tree or worktree). A configuration above it belongs to
    /// something else.
    package static let projectMarkers = ["Package.swift", ".git"]

    /// `.obsreplay.json` in `directory` or the nearest directory above it, looking no
    /// higher than the first directory holding a `projectMarkers` entry (nor above `/`).
    ///
    /// A file found is applied only if `user` owns it (a symlink: the link and its
    /// target), it is a regular file, and nobody else may write it: not writable by
    /// others, nor by its group unless that is `group`. In a shared, world-writable
    /// parent another user could otherwise plant one that turns every rule off, and a
    /// CI job would pass without a word.
    package static func find(from directory: String, user: UInt32 = geteuid(), group: UInt32 = getegid()) -> Lookup {
        var url = URL(fileURLWithPath: directory).standardizedFileURL
        while true {
            let candidate = url.appendingPathComponent(fileName).path
            var status = stat()
            if lstat(candidate, &status) == 0 {
                if let reason = unsafety(candidate, status, user: user, group: group) {
                    return .ignored(candidate, reason: reason)
                }
                return .found(candidate)
            }
            let atBoundary = projectMarkers.contains { marker in
                var entry = stat()
                return lstat(url.appendingPathComponent(marker).path, &entry) == 0
            }
            let parent = url.deletingLastPathComponent()
            if atBoundary || parent.path == url.path { return .none }
            url = parent
        }
    }

    /// Why the file at `path` (`lstat` gave `status`) may not be the user's own choice.
    private static func unsafety(_ path: String, _ status: stat, user: UInt32, group: UInt32) -> String? {
        var status = status
        if status.st_mode & S_IFMT == S_IFLNK {
            if status.st_uid != user { return "it is a symbolic link owned by uid \(status.st_uid), not by you (uid \(user))" }
            guard stat(path, &status) == 0 else { return "it is a symbolic link to nothing" }
        }
        if status.st_mode & S_IFMT != S_IFREG { return "it is not a regular file" }
        if status.st_uid != user { return "it is owned by uid \(status.st_uid), not by you (uid \(user))" }
        if status.st_mode & S_IWOTH != 0 { return "anyone may write it (mode \(String(status.st_mode & 0o777, radix: 8)))" }
        if status.st_mode & S_IWGRP != 0, status.st_gid != group {
            return "group \(status.st_gid) may write it (mode \(String(status.st_mode & 0o777, radix: 8)))"
        }
        return nil
    }

    static func parse(_ object: Any, path: String) throws(ConfigurationError) -> DiagnosisConfiguration {
        func invalid(_ message: String) -> ConfigurationError { .invalid(path: path, message: message) }
        guard let root = object as? [String: Any] else { throw invalid("expected a JSON object at the top level") }
        var configuration = DiagnosisConfiguration()
        for key in root.keys.sorted() {
            let value = root[key]!
            switch key {
            case "rules":
                guard let rules = value as? [String: Any] else { throw invalid("'rules' must be an object of rule code to settings") }
                for name in rules.keys.sorted() {
                    guard let rule = Rule(codeOrName: name) else {
                        let candidates = Rule.allCases.map(\.code) + Rule.allCases.map(\.name)
                        throw invalid("unknown rule 'rules.\(name)'" + DidYouMean.hint(for: name, among: candidates))
                    }
                    guard let settings = rules[name] as? [String: Any] else {
                        throw invalid("'rules.\(name)' must be an object such as {\"enabled\": false} or {\"severity\": \"info\"}")
                    }
                    for (settingKey, setting) in settings.sorted(by: { $0.key < $1.key }) {
                        switch settingKey {
                        case "enabled":
                            guard let enabled = setting as? Bool, isJSONBool(setting) else {
                                throw invalid("'rules.\(name).enabled' must be true or false")
                            }
                            if !enabled { configuration.disabled.insert(rule) }
                        case "severity":
                            let text = setting as? String ?? "\(setting)"
                            guard let severity = Severity(rawValue: text) else {
                                throw invalid("invalid severity '\(text)' for 'rules.\(name).severity': expected one of error, warning, info"
                                    + DidYouMean.hint(for: text, among: Severity.allCases.reversed().map(\.rawValue)))
                            }
                            configuration.severities[rule] = severity
                        default:
                            throw invalid("unknown key 'rules.\(name).\(settingKey)'" + DidYouMean.hint(for: settingKey, among: ruleKeys))
                        }
                    }
                }
            case "budget-ms":
                guard let number = value as? NSNumber, !isJSONBool(value),
                      let milliseconds = Int64(exactly: number.doubleValue), milliseconds >= 0,
                      milliseconds <= Int64.max / 1_000_000
                else {
                    throw invalid("'budget-ms' must be a whole number of milliseconds from 0 to \(Int64.max / 1_000_000)")
                }
                configuration.budgetMs = milliseconds
            case "ignore-call-sites":
                guard let globs = value as? [String] else {
                    throw invalid("'ignore-call-sites' must be an array of path globs such as \"ThirdParty/*\"")
                }
                configuration.ignoredCallSites = globs
            default:
                throw invalid("unknown key '\(key)'" + DidYouMean.hint(for: key, among: keys))
            }
        }
        return configuration
    }

    // MARK: - Applying

    /// `findings` with disabled rules and ignored call sites dropped and severities changed.
    package func apply(_ findings: [Finding]) -> [Finding] {
        findings.compactMap { finding in
            guard !disabled.contains(finding.rule), !isIgnored(finding) else { return nil }
            var copy = finding
            if let severity = severities[finding.rule] { copy.severity = severity }
            return copy
        }
    }

    /// Whether every call site of `finding` matches an ignored glob.
    func isIgnored(_ finding: Finding) -> Bool {
        guard !ignoredCallSites.isEmpty, !finding.callSites.isEmpty else { return false }
        return finding.callSites.allSatisfy { site in
            let file = site.lastIndex(of: ":").map { String(site[..<$0]) } ?? site
            return ignoredCallSites.contains { fnmatch($0, file, 0) == 0 || fnmatch($0, site, 0) == 0 }
        }
    }
}

/// `true` for a JSON `true`/`false` (Foundation bridges them to `NSNumber` like numbers).
private func isJSONBool(_ value: Any) -> Bool {
    guard let number = value as? NSNumber else { return false }
    return String(cString: number.objCType) == "c" || type(of: number) == type(of: NSNumber(value: true))
}

/// A configuration file that cannot be used.
package enum ConfigurationError: Error, CustomStringConvertible, Equatable {
    /// Unreadable or not JSON: the input cannot be used (exit 2).
    case unusable(path: String, detail: String)
    /// Valid JSON asking for something unknown (exit 64, like an unknown option).
    case invalid(path: String, message: String)

    package var description: String {
        switch self {
        case let .unusable(path, detail): return "\(path): \(detail)"
        case let .invalid(path, message): return "\(path): \(message)"
        }
    }
}
