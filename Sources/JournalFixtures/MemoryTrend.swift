import Foundation

/// Whether a process's resident memory stayed flat while it worked: the soak harness's
/// decision, kept here (pure, no I/O) so tests can feed it synthetic series.
///
/// Memory is judged against work done (events), not time: on a loaded machine the same
/// warm-up (buffers, caches, statements, one malloc arena per thread reaching their size)
/// takes longer in seconds but not in events, and a leak grows with work. The first half of
/// the work is warm-up; over the second half, the least-squares line through the samples
/// must rise by at most `tolerance` (4 MiB, or 5% of the level the second half starts at,
/// whichever is more). A line rather than max-against-max: a single late spike of the
/// allocator moves it little, while steady growth or repeated steps (a table doubling as
/// history accumulates) move it by their full size.
package struct MemoryTrend: Equatable {
    /// One reading: the work done so far and the resident memory then.
    package struct Sample: Equatable {
        package var work: Double
        package var bytes: Int

        package init(work: Double, bytes: Int) {
            self.work = work
            self.bytes = bytes
        }
    }

    /// Whether memory stayed flat over the second half of the work.
    package var flat: Bool
    /// The line's value where the second half begins, in bytes.
    package var level: Double
    /// The line's rise over the second half, in bytes (negative when memory fell).
    package var rise: Double
    /// The line's slope, in bytes per unit of work.
    package var slope: Double
    /// The largest rise judged flat, in bytes.
    package var tolerance: Double
    /// How many samples the second half holds.
    package var judged: Int

    static let mebibyte = 1_048_576.0

    /// Judges `samples`, in the order taken. Fewer than 4 samples in the second half of
    /// the work (or no work done) are too few to judge, and count as flat.
    package init(_ samples: [Sample]) {
        let end = samples.map(\.work).max() ?? 0
        let half = samples.filter { $0.work >= end / 2 }
        judged = half.count
        let n = Double(half.count)
        let meanX = half.map(\.work).reduce(0, +) / max(n, 1)
        let meanY = half.map { Double($0.bytes) }.reduce(0, +) / max(n, 1)
        let sxx = half.map { ($0.work - meanX) * ($0.work - meanX) }.reduce(0, +)
        let sxy = half.map { ($0.work - meanX) * (Double($0.bytes) - meanY) }.reduce(0, +)
        slope = half.count >= 4 && sxx > 0 ? sxy / sxx : 0
        let start = half.map(\.work).min() ?? 0
        level = meanY + slope * (start - meanX)
        rise = slope * (end - start)
        tolerance = Swift.max(4 * Self.mebibyte, 0.05 * level)
        flat = rise <= tolerance
    }

    /// "second half: 74.1 MiB → 75.0 MiB (+0.9 MiB, 0.31 MiB per million events; allowed
    /// +4.0), 30 samples", with `unit` naming the work.
    package func description(unit: String) -> String {
        func mib(_ bytes: Double) -> String { String(format: "%.1f", bytes / Self.mebibyte) }
        let perMillion = slope * 1_000_000 / Self.mebibyte
        let sign = rise >= 0 ? "+" : ""
        return "second half: \(mib(level)) MiB → \(mib(level + rise)) MiB (\(sign)\(mib(rise)) MiB, "
            + "\(String(format: "%.2f", perMillion)) MiB per million \(unit); allowed +\(mib(tolerance))), \(judged) samples"
    }
}
