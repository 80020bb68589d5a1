/// `did you mean 'warning'?` for a word that is close to one of the words expected.
package enum DidYouMean {
    /// The closest of `candidates` to `word` (at most 2 edits, a case-only difference or
    /// a prefix of at least 3 characters), if any; ties go to the earlier candidate.
    package static func suggestion(for word: String, among candidates: [String]) -> String? {
        let limit = word.count <= 3 ? 1 : 2
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            // A case-only difference, or an abbreviation (`warn`), counts as one edit.
            let lower = word.lowercased(), other = candidate.lowercased()
            let distance = lower == other ? 0
                : (lower.count >= 3 && other.hasPrefix(lower) ? 1 : editDistance(word, candidate, limit: limit))
            guard let distance else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// `; did you mean 'warning'?`, or an empty string when nothing is close.
    package static func hint(for word: String, among candidates: [String], prefix: String = "") -> String {
        suggestion(for: word, among: candidates).map { "; did you mean '\(prefix)\($0)'?" } ?? ""
    }
}
