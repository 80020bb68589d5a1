import Foundation

/// The findings a team has accepted for now: `diagnose --baseline FILE` fails only on
/// findings whose fingerprint is not in it.
///
/// Read from a file `diagnose --write-baseline FILE` wrote (`{"version": 1,
/// "fingerprints": [...]}`, pretty-printed and sorted: it is committed and reviewed) or from a previous `diagnose --json` (an array of findings,
/// or of `--group-by fingerprint` groups, each with a `fingerprint`).
package struct Baseline: Sendable, Equatable {
    /// The accepted fingerprints.
    package var fingerprints: Set<String>
    /// What the file says of each fingerprint (`OJ004 leaked-registration: …`), when it says
    /// it: how a stale entry is named to the person who has to delete it.
    package var descriptions: [String: String]

    package init(fingerprints: Set<String>, descriptions: [String: String] = [:]) {
        self.fingerprints = fingerprints
        self.descriptions = descriptions
    }

    /// The entries no finding of this run matched (`seen`: every fingerprint found, new or
    /// baselined), sorted: fixed bugs whose entries would hide their return.
    package func stale(seen: Set<String>) -> [String] { fingerprints.subtracting(seen).sorted() }

    /// `877433c9… OJ004 leaked-registration: VideoScreen#3's registration …`.
    package func describe(_ fingerprint: String) -> String {
        descriptions[fingerprint].map { "\(fingerprint) \($0)" } ?? fingerprint
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
        let entries: [Any]
        if let array = object as? [Any] {
            entries = array
        } else if let root = object as? [String: Any], let list = root["fingerprints"] as? [Any] {
            entries = list
        } else {
            throw BaselineError(path: path, detail: "expected a JSON array of findings or an object with \"fingerprints\"")
        }
        var fingerprints = Set<String>()
        var descriptions: [String: String] = [:]
        for (index, entry) in entries.enumerated() {
            if let text = entry as? String {
                fingerprints.insert(text)
            } else if let finding = entry as? [String: Any], let text = finding["fingerprint"] as? String {
                fingerprints.insert(text)
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
        return Baseline(fingerprints: fingerprints, descriptions: descriptions)
    }

    /// The file `--write-baseline` writes: the distinct fingerprints of `findings`, sorted,
    /// with the code and message of the first finding of each for people reading diffs.
    package static func document(for findings: [Finding]) -> JSONValue {
        var firsts: [String: Finding] = [:]
        for finding in findings where firsts[finding.fingerprint] == nil { firsts[finding.fingerprint] = finding }
        return document(firsts: firsts)
    }

    /// Opens the file `diagnose --write-baseline` names, before anything is diagnosed, as
    /// `-o` opens its file (`OutputFile`): the journals being read and their side files
    /// are refused (by name or through links), a FIFO or a device is written into, never
    /// replaced, and a regular file is replaced atomically at `write`, `0600` when new.
    /// - Throws: `AnalysisError.outputRefused` or `.output`, naming the path.
    package static func output(_ path: String, protecting journalPaths: [String]) throws(AnalysisError) -> OutputFile {
        try OutputFile.open(path, protecting: journalPaths, what: "baseline")
    }

    /// Writes `document` (from `document(for:)`) into `file` and puts it in place; on a
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

    /// The baseline file for the first finding of each fingerprint: entries sorted by
    /// fingerprint, so rewriting it after a run changes only the lines of what changed.
    package static func document(firsts: [String: Finding]) -> JSONValue {
        let entries = firsts.sorted { $0.key < $1.key }.map { fingerprint, finding in
            JSONValue.object([
                ("fingerprint", .string(fingerprint)), ("code", .string(finding.rule.code)),
                ("name", .string(finding.rule.name)), ("message", .string(finding.message)),
            ])
        }
        return .object([("version", .int(1)), ("fingerprints", .array(entries))])
    }
}

/// A baseline file that cannot be used (exit 2).
package struct BaselineError: Error, CustomStringConvertible, Equatable {
    package var path: String
    package var detail: String

    package var description: String { "\(path): unusable baseline: \(detail)" }
}
