package import JournalAnalysis

/// How the report encodes a session's events for its script: one flat array of integers,
/// row after row, one row per journal event in sequence order.
///
/// A row is the kind's code, the common fields (`seq` and `t` as differences from the
/// previous row, so most are one or two digits), then the kind's own fields as
/// `fields(of:)` lists them. The page carries this table, so the script decodes with the
/// very layout that encoded, and tests read the data the same way. Text fields are
/// 1-based indexes into the session's string table (0: none); `lane`, `other`, `channel`
/// and `scope` are 1-based indexes into the session's lists (0: none).
package enum ReportEventLayout {
    /// The kinds of rows, by code.
    package enum Kind: Int, Sendable, CaseIterable {
        case registered, replaced, removed, removeUnregistered, changed, delivered, skipped, scopeBegan, scopeEnded, gap
        /// A kind this version does not know; `reason` holds its name.
        case unknown

        /// The journal's name for the kind (`unknown` for unknown kinds).
        package var name: String { String(describing: self) }

        /// The row kind of a journal event kind (`nil`: one this version does not know).
        package init(_ kind: EventKind?) {
            switch kind {
            case .registered: self = .registered
            case .replaced: self = .replaced
            case .removed: self = .removed
            case .removeUnregistered: self = .removeUnregistered
            case .changed: self = .changed
            case .delivered: self = .delivered
            case .skipped: self = .skipped
            case .scopeBegan: self = .scopeBegan
            case .scopeEnded: self = .scopeEnded
            case .gap: self = .gap
            // Schema 2's no-op cancel: shown like a kind the page has no layout for.
            case .cancelAfterAutoRemoval, .ownerGone, nil: self = .unknown
            }
        }
    }

    /// Bits of the `flags` field.
    package enum Flag: Int, Sendable, CaseIterable {
        /// On the main thread.
        case main = 1
        /// A delivery to a registration that expects the main thread, made on another.
        case offMain = 2
        /// A delivery longer than the slow-callback budget.
        case slow = 4
        /// A prior (before the change) notification.
        case prior = 8
        /// An initial delivery, made on registration.
        case initial = 16
        /// A change whose old and new values are equal.
        case redundant = 32
        /// A change posted when no callback was registered on its channel. Not named after
        /// OJ012 silent-change, which is about live owners that were not told.
        case noCallback = 64
    }

    /// Fields every row has after its kind code: `seq` (difference from the previous
    /// row's), `t` (microseconds since the session's start, difference from the previous
    /// row's), `thread` (index into the session's threads), `flags`.
    package static let common = ["seq", "t", "thread", "flags"]

    /// The fields of a kind, after the common ones. `dur` is in microseconds; `change` is
    /// how many rows back the change a delivery or skip belongs to (0: unknown); `live` is
    /// the number of live registrations a change was dispatched to (-1: unknown).
    package static func fields(of kind: Kind) -> [String] {
        switch kind {
        case .registered: return ["lane", "depth"]
        case .replaced: return ["lane", "other"]
        case .removed: return ["lane", "site", "reason"]
        case .removeUnregistered: return ["channel", "lane", "owner", "site", "reason"]
        case .changed: return ["channel", "old", "new", "site", "live", "depth"]
        case .delivered: return ["lane", "dur", "change", "depth", "new"]
        case .skipped: return ["lane", "change", "reason", "depth"]
        case .scopeBegan, .scopeEnded: return ["scope"]
        case .gap: return ["reason"]
        case .unknown: return ["channel", "lane", "reason"]
        }
    }
}

/// Appends integers as comma-separated decimal text, straight into bytes: a session of a
/// million events is millions of numbers, too many for an array of values first.
struct IntegerListWriter {
    private(set) var bytes: [UInt8] = []
    private var digits = [UInt8](repeating: 0, count: 20)

    mutating func append(_ value: Int64) {
        if !bytes.isEmpty { bytes.append(0x2C) }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(0x2D) }
        var count = 0
        repeat {
            digits[count] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
            magnitude /= 10
            count += 1
        } while magnitude > 0
        while count > 0 {
            count -= 1
            bytes.append(digits[count])
        }
    }

    mutating func append(_ value: Int) { append(Int64(value)) }
}
