package import JournalAnalysis

/// The sessions a report of every session (`report --all`) does not draw, so the page can
/// say what it left out.
///
/// A journal from elsewhere decides how many sessions it has: drawing each one (a tab, a
/// section, its data, its diagnosis) made a journal of 200,000 empty sessions take
/// minutes and a page of hundreds of megabytes. Sessions without events are counted, not
/// drawn (there is nothing to draw; `diagnose` and `export` skip them too), and at most
/// `drawnLimit` sessions with events are drawn: the latest ones, as the others are
/// counted. Each group is told as a count and its range of ids, so the page stays small
/// whatever the journal holds.
package struct SessionsLeftOut: Equatable, Sendable {
    /// A group of sessions left out: how many, and their lowest and highest ids.
    package struct Group: Equatable, Sendable {
        package var count = 0
        package var firstID: Int64 = .max
        package var lastID: Int64 = .min

        /// A group of `count` sessions with ids from `firstID` to `lastID`; empty by default.
        package init(count: Int = 0, firstID: Int64 = .max, lastID: Int64 = .min) {
            self.count = count
            self.firstID = firstID
            self.lastID = lastID
        }

        mutating func add(_ id: Int64) {
            count += 1
            firstID = min(firstID, id)
            lastID = max(lastID, id)
        }
    }

    /// The most sessions with events a report of every session draws.
    package static let drawnLimit = 200

    /// Sessions without events.
    package var empty: Group
    /// Sessions with events beyond `drawnLimit` (the earliest).
    package var beyondLimit: Group

    /// Nothing left out.
    package static let none = SessionsLeftOut()

    /// What is left out: `empty` sessions and sessions `beyondLimit`.
    package init(empty: Group = Group(), beyondLimit: Group = Group()) {
        self.empty = empty
        self.beyondLimit = beyondLimit
    }

    /// The sessions of `summaries` (oldest first) to draw, and what is left out. A journal
    /// whose sessions are all empty draws its latest one, so the page still shows a session.
    package static func select(_ summaries: [SessionSummary], limit: Int = drawnLimit) -> (drawn: [SessionSummary], leftOut: SessionsLeftOut) {
        var leftOut = SessionsLeftOut()
        var withEvents: [SessionSummary] = []
        for summary in summaries {
            if summary.eventCount > 0 { withEvents.append(summary) } else { leftOut.empty.add(summary.id) }
        }
        if withEvents.isEmpty, let latest = summaries.last {
            leftOut = SessionsLeftOut()
            for summary in summaries.dropLast() { leftOut.empty.add(summary.id) }
            return ([latest], leftOut)
        }
        let cut = max(0, withEvents.count - limit)
        for summary in withEvents.prefix(cut) { leftOut.beyondLimit.add(summary.id) }
        return (Array(withEvents.dropFirst(cut)), leftOut)
    }

    /// One HTML paragraph per group left out, or nothing.
    package var html: String {
        var html = ""
        if empty.count > 0 {
            html += "<p class=\"left-out\">\(ReportPage.plural(empty.count, "session")) without events \(empty.count == 1 ? "is" : "are") not drawn (\(ids(empty))); obsreplay sessions lists them.</p>\n"
        }
        if beyondLimit.count > 0 {
            html += "<p class=\"left-out\">\(ReportPage.plural(beyondLimit.count, "earlier session")) with events \(beyondLimit.count == 1 ? "is" : "are") not drawn (\(ids(beyondLimit))): a page draws the latest \(Self.drawnLimit); obsreplay report --session ID draws any one.</p>\n"
        }
        return html
    }

    private func ids(_ group: Group) -> String {
        group.firstID == group.lastID ? "id \(group.firstID)" : "ids \(group.firstID)–\(group.lastID)"
    }
}
