import JournalAnalysis

/// A summarised session's activity per channel: how many changes, deliveries and problem
/// deliveries (off the main thread, slow, skipped) fell into each of `bins` equal ranges of
/// sequence numbers. The page draws these instead of one mark per event once a session is
/// beyond `SessionReport.detailLimit` events, so its size follows the channels, not the events.
struct ReportDensity {
    static let bins = 400

    struct Counts {
        var changes: [Int]
        var deliveries: [Int]
        var problems: [Int]

        init() {
            changes = Array(repeating: 0, count: ReportDensity.bins)
            deliveries = changes
            problems = changes
        }
    }

    let lastSeq: Int64
    /// Per report channel index.
    private(set) var channels: [Int: Counts] = [:]
    /// The time (µs since the session's start) of each bin's first event (-1: no event).
    private(set) var binTimes = [Int64](repeating: -1, count: ReportDensity.bins)

    init(lastSeq: Int64) { self.lastSeq = max(lastSeq, 1) }

    /// The bin of a sequence number (any seq: clamped, and never overflowing).
    func bin(_ seq: Int64) -> Int {
        let offset = min(max(seq, 1), lastSeq) - 1
        let bin = offset <= Int64.max / Int64(Self.bins)
            ? Int(offset * Int64(Self.bins) / lastSeq) : Int(Double(offset) / Double(lastSeq) * Double(Self.bins))
        return min(bin, Self.bins - 1)
    }

    mutating func count(_ event: EventRow, channel: Int?, problem: Bool) {
        let bin = bin(event.seq)
        if binTimes[bin] < 0 { binTimes[bin] = event.timeNs / 1000 }
        guard let channel, event.kind == .changed || event.kind == .delivered || event.kind == .skipped else { return }
        // Mutated in place: copying the counts out and back would copy them per event.
        if event.kind == .changed {
            channels[channel, default: Counts()].changes[bin] += 1
        } else {
            channels[channel, default: Counts()].deliveries[bin] += 1
        }
        if problem { channels[channel, default: Counts()].problems[bin] += 1 }
    }

    /// `{"bins", "lastSeq", "times", "channels": [[channel, changes, deliveries, problems], ...]}`,
    /// written straight as text: as `JSONValue`s, 220 channels' counts were 264,000 values
    /// (6 MB, the largest thing the report held at its end).
    func render(into out: inout String) {
        func ints(_ values: [Int]) {
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                out += String(value)
            }
            out += "]"
        }
        out += "{\"bins\":\(Self.bins),\"lastSeq\":\(lastSeq),\"times\":"
        ints(binTimes.map { Int($0) })
        out += ",\"channels\":["
        for (index, key) in channels.keys.sorted().enumerated() {
            let counts = channels[key]!
            out += index > 0 ? ",[" : "["
            out += String(key)
            for values in [counts.changes, counts.deliveries, counts.problems] {
                out += ","
                ints(values)
            }
            out += "]"
        }
        out += "]}"
    }
}
