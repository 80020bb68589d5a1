import JournalStore

/// The stable identity of a finding: the same bug gives the same fingerprint across runs,
/// processes, machines and sessions.
///
/// It is made of what identifies the bug in code: the rule's code, the channel's subject
/// type and key, the owners' types and the call sites as `Module/File.swift:line`. Object
/// ids, sequence numbers, counts, times and message wording are left out, because they
/// change from one recording to the next. A moved call site (another line) is another
/// fingerprint: the code changed, so the finding is looked at again.
package enum FindingFingerprint {
    /// The text the fingerprint hashes, one part per line (readable, for tests and
    /// for people comparing two fingerprints).
    package static func identity(of finding: Finding) -> String {
        var parts = ["rule=\(finding.rule.code)"]
        if let channel = finding.channel { parts.append("channel=\(withoutObjectIDs(channel))") }
        let ownerTypes = finding.owners.map(withoutObjectIDs).uniqued()
        if !ownerTypes.isEmpty { parts.append("owners=\(ownerTypes.joined(separator: ","))") }
        if !finding.callSites.isEmpty { parts.append("sites=\(finding.callSites.joined(separator: ","))") }
        return parts.joined(separator: "\n")
    }

    /// 32 lowercase hexadecimal digits: two 64-bit FNV-1a hashes of `identity(of:)`'s
    /// UTF-8 (no CryptoKit on Linux; this is an identity, not a security boundary).
    package static func fingerprint(of finding: Finding) -> String {
        let bytes = identity(of: finding).utf8
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
