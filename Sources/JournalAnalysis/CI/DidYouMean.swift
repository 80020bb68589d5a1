/// `did you mean 'warning'?` for a word that is close to one of the words expected.
package enum DidYouMean {
    /// The closest of `candidates` to `word` (at most 2 edits, or a case-only
    /// difference), if any; ties go to the earlier candidate.
    package static func suggestion(for word: String, among candidates: [String]) -> String? {
        let limit = word.count <= 3 ? 1 : 2
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = candidate.lowercased() == word.lowercased() ? 0 : editDistance(word, candidate, limit: limit)
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
