/// Levenshtein distance between two strings (by Unicode scalar), or `nil` when it
/// exceeds `limit` (the computation stops early). With `transpositions`, swapping two
/// adjacent characters counts as one edit (optimal string alignment), which is how a typing
/// slip looks (`maxPirce`).
func editDistance(_ a: String, _ b: String, limit: Int, transpositions: Bool = false) -> Int? {
    let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
    if abs(a.count - b.count) > limit { return nil }
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var beforePrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        var rowMin = current[0]
        for j in 1...b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            if transpositions, i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], beforePrevious[j - 2] + 1)
            }
            rowMin = min(rowMin, current[j])
        }
        if rowMin > limit { return nil }
        swap(&beforePrevious, &previous)
        swap(&previous, &current)
    }
    return previous[b.count] <= limit ? previous[b.count] : nil
}
