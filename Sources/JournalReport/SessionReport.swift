package import JournalAnalysis

/// Everything the report shows of one session, as the page embeds it: names, threads,
/// channels, one lane per registration, scopes, the events encoded per
/// `ReportEventLayout`, and the findings with what they cite resolved to rows and lanes.
///
/// Indexes: `rows` count events in sequence order from 0; lanes, channels, scopes and
/// threads are 0-based here (the encoded events refer to them 1-based).
package struct SessionReport {
    /// A channel, in order of first appearance.
    package struct Channel: Sendable, Equatable {
        package var journalID: Int64
        /// `Player#1.isPlaying` (string index).
        package var name: Int
        package var singleSlot: Bool
    }

    /// A registration's lifetime: from the row that first names it to its removal.
    package struct Lane: Sendable, Equatable {
        package var registrationID: Int64
        package var channel: Int
        /// String indexes.
        package var owner: Int
        package var site: Int
        package var function: Int
        package var options: Int
        package var queue: Int
        package var expectsMain: Bool
        /// 1-based scope index (0: none).
        package var scope: Int
        package var startRow: Int
        /// -1 while live at the end.
        package var endRow: Int
        package var end: LaneEnd
        /// The removal reason as recorded (string index, 0: none).
        package var reason: Int
    }

    /// A scope (`ObservationScope`): from its beginning to its end (-1: not seen).
    package struct Scope: Sendable, Equatable {
        package var journalID: Int64
        package var name: Int
        package var beganRow: Int
        package var endedRow: Int
    }

    /// A finding with the rows, lanes and channels it cites.
    package struct CitedFinding: Sendable, Equatable {
        package var finding: Finding
        /// Rows of the sequence numbers it names that the session holds, ascending.
        package var rows: [Int]
        package var lanes: [Int]
        package var channels: [Int]
    }

    package var summary: SessionSummary
    package var budgetNs: Int64
    package var strings = ReportStrings()
    package var threads: [(number: Int64, isMain: Bool)] = []
    package var channels: [Channel] = []
    package var lanes: [Lane] = []
    package var scopes: [Scope] = []
    /// The sequence number of each row.
    package var seqs: [Int64] = []
    /// The rows, encoded.
    var events = IntegerListWriter()
    /// The findings the page lists: the first `ReportPage.perRule` of each rule, in the
    /// diagnosis's order.
    package var findings: [CitedFinding] = []
    /// How many findings the session has (all of them, listed or not).
    package var tally = FindingTally()
    /// Changes a registration missed because it was replaced while its owner was alive:
    /// the what-if multicast replay's answer (`ReplayEngine`), as (change row, lane).
    package var missed: [(row: Int, lane: Int)] = []
    /// Rows of changes (not prior notifications) that reached nobody: no delivery, no skip.
    package var unheard: [Int] = []
    /// The sequence numbers drawn when the report was limited (`nil`: the whole session).
    package var window: ReportWindow?
    /// What the page left out and how to see it, one sentence each (shown above the chart).
    package var notes: [String] = []
    /// Set when the session was summarised (more than `detailLimit` events and no window):
    /// only the events the shown findings cite, their registrations' lifetimes and the
    /// changes those missed are rows; everything else is counted per channel here.
    var density: ReportDensity?
    /// How many registrations the session made (the lanes drawn are fewer when summarised).
    package var registrationCount = 0

    /// Sessions with more events than this are summarised unless a window limits them:
    /// keeps a page of a million events under 10 MB and its generator's memory bounded.
    package static let detailLimit: Int64 = 250_000

    /// A summarised session draws, per owner and channel, this many of the changes the
    /// owner missed after its registration there was replaced: an owner that lives on
    /// misses every later change, and drawing them all made the page (and its generator's
    /// memory) grow with the session.
    package static let missedPerOwner = 100

    package init(summary: SessionSummary, budgetNs: Int64) {
        self.summary = summary
        self.budgetNs = budgetNs
    }

    /// The row of `seq`, if the session has that event.
    package func row(of seq: Int64) -> Int? {
        var low = 0, high = seqs.count
        while low < high {
            let middle = (low + high) / 2
            if seqs[middle] < seq { low = middle + 1 } else { high = middle }
        }
        return low < seqs.count && seqs[low] == seq ? low : nil
    }

    /// `r5 VideoScreen#3`: how findings and tooltips name a lane.
    package func laneName(_ index: Int) -> String {
        let lane = lanes[index]
        return "r\(lane.registrationID) \(strings.text(lane.owner) ?? "?")"
    }
}
