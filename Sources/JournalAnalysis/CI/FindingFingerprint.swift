import JournalStore

/// The stable identity of a finding: the same bug gives the same fingerprint across runs,
/// processes, machines, sessions and unrelated edits of the source.
///
/// It is made of what identifies the bug in code and does not move when a line is added
/// elsewhere in the file: the rule's code, the channel's subject type and key, the owners'
/// types and each call site's file and function (`App/Player.swift` in `viewDidLoad()`),
/// never its line number. Object ids, sequence numbers, counts, times and message wording
/// are left out, because they change from one recording to the next.
///
/// Where the sources are at hand (`SourceLocator`), the text of the call sites' lines
/// (whitespace runs made one space) tells apart two findings of one rule in one function:
/// `sourceHash(of:locator:)`, kept beside the fingerprint in baselines and SARIF, as
/// GitHub code scanning and SwiftLint baselines key a result on its line's text.
///
/// Fingerprints of version 1 (obsreplay 0.2 and before) hashed `Module/File.swift:line`: one line added
/// at the top of a file made every finding below it new. `legacyFingerprint(of:)` computes
/// them only so that a baseline written then still matches, with a note to rewrite it.
package enum FindingFingerprint {
    /// The text the fingerprint hashes, one part per line (readable, for tests and
    /// for people comparing two fingerprints).
    package static func identity(of finding: Finding) -> String {
        var parts = ["rule=\(finding.rule.code)"]
        if let channel = finding.channel { parts.append("channel=\(withoutObjectIDs(channel))") }
        let ownerTypes = Set(finding.owners.map(withoutObjectIDs)).sorted()
        if !ownerTypes.isEmpty { parts.append("owners=\(ownerTypes.joined(separator: ","))") }
        let sites = Set(finding.callSites.map { site in
            let file = fileOf(site)
            return finding.functions[site].map { "\(file) \($0)" } ?? file
        }).sorted()
        if !sites.isEmpty { parts.append("sites=\(sites.joined(separator: ","))") }
        return parts.joined(separator: "\n")
    }

    /// 32 lowercase hexadecimal digits: two 64-bit FNV-1a hashes of `identity(of:)`'s
    /// UTF-8 (no CryptoKit on Linux; this is an identity, not a security boundary).
    package static func fingerprint(of finding: Finding) -> String {
        hash(identity(of: finding))
    }

    /// The version-1 fingerprint (call sites with their lines, in the finding's order):
    /// what baselines written before version 2 hold.
    package static func legacyFingerprint(of finding: Finding) -> String {
        var parts = ["rule=\(finding.rule.code)"]
        if let channel = finding.channel { parts.append("channel=\(withoutObjectIDs(channel))") }
        let ownerTypes = finding.owners.map(withoutObjectIDs).uniqued()
        if !ownerTypes.isEmpty { parts.append("owners=\(ownerTypes.joined(separator: ","))") }
        if !finding.callSites.isEmpty { parts.append("sites=\(finding.callSites.joined(separator: ","))") }
        return hash(parts.joined(separator: "\n"))
    }

    /// A hash of the text of the finding's call-site lines found under `locator`'s root
    /// (each as `file<TAB>text`, whitespace runs made one space, sorted), or `nil` when
    /// none is found there: the same lines moved by an edit above them hash the same.
    package static func sourceHash(of finding: Finding, locator: SourceLocator) -> String? {
        let lines = Set(finding.callSites.compactMap { site in
            locator.sourceLine(site).map { "\(fileOf(site))\t\($0)" }
        }).sorted()
        return lines.isEmpty ? nil : hash(lines.joined(separator: "\n"))
    }

    /// `Module/File.swift:42` → `Module/File.swift`; a spelling without a line as it is.
    static func fileOf(_ site: String) -> String {
        guard let colon = site.lastIndex(of: ":"), Int(site[site.index(after: colon)...]) != nil else { return site }
        return String(site[..<colon])
    }

    static func hash(_ text: String) -> String {
        let bytes = text.utf8
        return JournalName.hex(JournalName.fnv1a(bytes, basis: 0xcbf2_9ce4_8422_2325))
            + JournalName.hex(JournalName.fnv1a(bytes, basis: 0x6c62_272e_07bb_0142))
    }

    /// `Player#1.isPlaying` → `Player.isPlaying`; `MiniPlayerWindow#2` → `MiniPlayerWindow`.
    static func withoutObjectIDs(_ text: String) -> String {
        var out = ""
        var skipping = false
        for scalar in text.unicodeScalars {
            if scalar == "#" {
                skipping = true
                continue
            }
            if skipping && ("0"..."9").contains(scalar) { continue }
            skipping = false
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}

extension Finding {
    /// The finding's stable fingerprint (see `FindingFingerprint`).
    package var fingerprint: String { FindingFingerprint.fingerprint(of: self) }
}
