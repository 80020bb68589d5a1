/// The sequence numbers a report draws (`report --from/--to`, `--around`): the events
/// outside are left out of the chart, while the findings still come from the whole session.
package struct ReportWindow: Sendable, Equatable {
    /// First and last sequence number drawn, inclusive.
    package var from: Int64
    package var to: Int64

    package init(from: Int64, to: Int64) {
        self.from = from
        self.to = to
    }

    /// How many sequence numbers `--around` shows on each side of its event.
    package static let aroundRadius: Int64 = 100

    /// `seq` with `aroundRadius` sequence numbers on each side (clamped, never overflowing).
    package static func around(_ seq: Int64) -> ReportWindow {
        let (low, lowOverflow) = seq.subtractingReportingOverflow(aroundRadius)
        let (high, highOverflow) = seq.addingReportingOverflow(aroundRadius)
        return ReportWindow(from: lowOverflow ? .min : max(low, 1), to: highOverflow ? .max : high)
    }
}
