import Foundation

/// The findings a team has accepted for now: `diagnose --baseline FILE` fails only on
/// findings no entry of it matches.
///
/// Read from a file `diagnose --write-baseline FILE` wrote (`{"version": 2, "fingerprints":
/// [...]}`, pretty-printed and sorted: it is committed and reviewed) or from a previous
/// `diagnose --json` (an array of findings, or of `--group-by fingerprint` groups, each with
/// a `fingerprint`).
///
/// An entry is a fingerprint (`FindingFingerprint`), with the hash of its call-site lines'
/// text when the sources were at hand (`source`). A finding matches an entry of its
/// fingerprint whose `source` is its own, or when either side has none (sources not
/// found), so a baseline written where the sources are still works where they are not.
/// Entries of version-1 files (and any entry no finding's fingerprint matches) are also
/// compared with the finding's version-1 fingerprint, which moves with line numbers: such
/// matches are counted (`Match.legacy`) so that the gate can ask for a rewrite.
package struct Baseline: Sendable, Equatable {
    /// One accepted finding.
    package struct Entry: Sendable, Hashable, Comparable {
        package var fingerprint: String
        /// `FindingFingerprint.sourceHash`, when the sources were found.
        package var source: String?

        package init(fingerprint: String, source: String? = nil) {
            self.fingerprint = fingerprint
            self.source = source
        }

        package static func < (a: Entry, b: Entry) -> Bool {
            (a.fingerprint, a.source ?? "") < (b.fingerprint, b.source ?? "")
        }
    }

    /// How a finding matched the baseline.
    package enum Match: Sendable, Equatable {
        /// By its fingerprint (and its call-site lines' text, when both sides have it).
        case current(Entry)
        /// By the line-numbered fingerprint of version 1: the baseline needs a rewrite.
        case legacy(Entry)

        package var entry: Entry {
            switch self {
            case .current(let entry), .legacy(let entry): return entry
            }
        }
    }

    /// The accepted findings.
    package private(set) var entries: Set<Entry>
    /// The file's format: 2, or 1 for files written before version 2 (`--json` output
    /// has no version and is read as 2).
    package var version: Int
    /// What the file says of each fingerprint (`OJ004 leaked-registration: …`), when it says
    /// it: how a stale entry is named to the person who has to delete it.
    package var descriptions: [String: String]
    private var byFingerprint: [String: [Entry]] = [:]

    package init(entries: Set<Entry>, version: Int = 2, descriptions: [String: String] = [:]) {
        self.entries = entries
        self.version = version
        self.descriptions = descriptions
        for entry in entries.sorted() { byFingerprint[entry.fingerprint, default: []].append(entry) }
    }

    /// The entry `finding` matches, if any. `source`: the finding's
    /// `FindingFingerprint.sourceHash` (`nil` when its sources are not at hand).
    package func match(_ finding: Finding, source: String? = nil) -> Match? {
        if let candidates = byFingerprint[finding.fingerprint] {
            if let source, let exact = candidates.first(where: { $0.source == source }) { return .current(exact) }
            if let loose = candidates.first(where: { $0.source == nil || source == nil }) { return .current(loose) }
        }
        return byFingerprint[FindingFingerprint.legacyFingerprint(of: finding)]?.first.map(Match.legacy)
    }

    /// The entries `match` (of a finding whose call-site lines' hash is `source`) accounts
    /// for: its own, or, when the finding's sources were not at hand, every entry of its
    /// fingerprint (none of them can be told stale then).
    package func matched(by match: Match, source: String?) -> [Entry] {
        guard case .current(let entry) = match, source == nil else { return [match.entry] }
        return byFingerprint[entry.fingerprint] ?? [entry]
    }

    /// The entries no finding of this run matched (`matched`: the entries of every
    /// match), sorted: fixed bugs whose entries would hide their return.
    package func stale(matched: Set<Entry>) -> [Entry] { entries.subtracting(matched).sorted() }

    /// `877433c9… OJ004 leaked-registration: VideoScreen#3's registration …`.
    package func describe(_ entry: Entry) -> String {
        descriptions[entry.fingerprint].map { "\(entry.fingerprint) \($0)" } ?? entry.fingerprint
    }

    /// The baseline in `path`.
    /// - Throws: `BaselineError` naming the file and what is wrong with it.
    package static func load(path: String) throws(BaselineError) -> Baseline {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw BaselineError(path: path, detail: "cannot read it")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw BaselineError(path: path, detail: "not valid JSON (expected a file from 'diagnose --write-baseline' or 'diagnose --json')")
        }
        let list: [Any]
        var version = 2
        if let array = object as? [Any] {
            list = array
        } else if let root = object as? [String: Any], let fingerprints = root["fingerprints"] as? [Any] {
            list = fingerprints
            if let number = root["version"] as? Int {
                guard number == 1 || number == 2 else {
                    throw BaselineError(path: path, detail: "version \(number) is newer than this obsreplay reads (1 and 2): update obsreplay")
                }
                version = number
            }
        } else {
            throw BaselineError(path: path, detail: "expected a JSON array of findings or an object with \"fingerprints\"")
        }
        var entries = Set<Entry>()
        var descriptions: [String: String] = [:]
        for (index, item) in list.enumerated() {
            if let text = item as? String {
                entries.insert(Entry(fingerprint: text))
            } else if let finding = item as? [String: Any], let text = finding["fingerprint"] as? String {
                entries.insert(Entry(fingerprint: text, source: finding["source"] as? String))
                // A finding (`--json`), or a group whose example is one.
                let described = (finding["example"] as? [String: Any]) ?? finding
                if let code = described["code"] as? String, let name = described["name"] as? String {
                    let message = (described["message"] as? String).map { ": " + $0 } ?? ""
                    descriptions[text] = TerminalText.value("\(code) \(name)\(message)")
                }
            } else {
                throw BaselineError(path: path, detail: "entry \(index + 1) has no \"fingerprint\" (a baseline from before fingerprints? write it again)")
            }
        }
        return Baseline(entries: entries, version: version, descriptions: descriptions)
    }

    /// Opens the file `diagnose --write-baseline` names, before anything is diagnosed, as
    /// `-o` opens its file (`OutputFile`): the journals being read and their side files
    /// are refused (by name or through links), a FIFO or a device is written into, never
    /// replaced, and a regular file is replaced atomically at `write`, `0600` when new.
    /// - Throws: `AnalysisError.outputRefused` or `.output`, naming the path.
    package static func output(_ path: String, protecting journalPaths: [String]) throws(AnalysisError) -> OutputFile {
        try OutputFile.open(path, protecting: journalPaths, what: "baseline")
    }

    /// Writes `document` (from `document(firsts:)`) into `file` and puts it in place; on a
    /// failure the file's old contents (or its absence) are left.
    /// - Throws: `AnalysisError.output` with the system's reason.
    package static func write(_ document: JSONValue, to file: OutputFile) throws(AnalysisError) {
        do {
            try file.write(document.pretty)
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }

    /// The baseline file for the first finding of each entry: entries sorted by
    /// fingerprint, so rewriting it after a run changes only the lines of what changed.
    package static func document(firsts: [Entry: Finding]) -> JSONValue {
        let entries = firsts.sorted { $0.key < $1.key }.map { entry, finding in
            var members: [(String, JSONValue)] = [("fingerprint", .string(entry.fingerprint))]
            if let source = entry.source { members.append(("source", .string(source))) }
            members += [
                ("code", .string(finding.rule.code)), ("name", .string(finding.rule.name)),
                ("message", .string(finding.message)),
            ]
            return JSONValue.object(members)
        }
        return .object([("version", .int(2)), ("fingerprints", .array(entries))])
    }
}

/// A baseline file that cannot be used (exit 2).
package struct BaselineError: Error, CustomStringConvertible, Equatable {
    package var path: String
    package var detail: String

    package var description: String { "\(path): unusable baseline: \(detail)" }
}
