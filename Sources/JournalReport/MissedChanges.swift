import JournalAnalysis

/// The what-if multicast replay's answer for the changes a report draws: per change that
/// someone missed, its channel and the owners that missed it, each label stored once.
///
/// An entry of the replay lists every owner a multicast channel would have called (about
/// 25 labels per change in the benchmark's mix); kept as values for every drawn change they
/// were most of the report's memory, so only the missed owners are kept, as indexes.
struct MissedChanges {
    struct Change {
        var seq: Int64
        /// Indexes into `labels`.
        var channel: Int32
        var owners: [Int32]
    }

    private(set) var changes: [Change] = []
    private(set) var labels: [String] = []
    private var index: [String: Int32] = [:]

    /// Keeps `change` if someone missed it (its missed owners once each, in order).
    mutating func add(_ change: ReplayState.WhatIfChange) {
        let missed = change.missed
        guard !missed.isEmpty else { return }
        changes.append(Change(seq: change.seq, channel: label(change.channel), owners: missed.uniqued().map { label($0) }))
    }

    /// In sequence order (the replay hands entries out per channel).
    mutating func sort() { changes.sort { $0.seq < $1.seq } }

    private mutating func label(_ text: String) -> Int32 {
        if let existing = index[text] { return existing }
        labels.append(text)
        index[text] = Int32(labels.count - 1)
        return Int32(labels.count - 1)
    }
}
