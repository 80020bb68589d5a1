/// A wall-clock time as the journal writes it, `2026-11-29T14:46:22.123Z` (ISO 8601, UTC,
/// optional fraction, `Z` or a `±HH:MM` offset), read with integer arithmetic only.
///
/// Foundation's ISO 8601 parser costs about a millisecond per call on Linux, which made
/// `sessions` take minutes on a journal of 200,000 sessions; this reads one in well under
/// a microsecond, and exactly (no floating point between two timestamps).
package struct ISOTimestamp: Sendable, Equatable {
    /// Seconds since 1970-01-01T00:00:00Z.
    package var seconds: Int64
    /// Nanoseconds into that second (0 ..< 1,000,000,000).
    package var nanoseconds: Int64

    /// A time from its parts.
    package init(seconds: Int64, nanoseconds: Int64) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// Parses `text`; `nil` if it is not such a timestamp (years 0001 to 9999).
    package init?(_ text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func digit(_ at: Int) -> Int64? {
            guard at < bytes.count, bytes[at] >= 48, bytes[at] <= 57 else { return nil }
            return Int64(bytes[at] - 48)
        }
        func number(_ count: Int) -> Int64? {
            var value: Int64 = 0
            for offset in 0..<count {
                guard let next = digit(index + offset) else { return nil }
                value = value * 10 + next
            }
            index += count
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2),
              expect(84), let hour = number(2), expect(58), let minute = number(2), expect(58),
              let second = number(2),
              year >= 1, (1...12).contains(month), (1...Self.daysIn(month, year)).contains(day),
              hour < 24, minute < 60, second < 61
        else { return nil }
        var nanoseconds: Int64 = 0
        if expect(46) {  // "."
            var digits = 0
            while let next = digit(index) {
                // Digits past nanoseconds are cut off, as a clock that precise would.
                if digits < 9 { nanoseconds = nanoseconds * 10 + next }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 9) { nanoseconds *= 10 }
        }
        var offset: Int64 = 0
        if !expect(90) {  // "Z"
            let sign: Int64 = expect(43) ? 1 : (expect(45) ? -1 : 0)  // "+", "-"
            guard sign != 0, let hours = number(2), expect(58), let minutes = number(2), hours < 24, minutes < 60
            else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard index == bytes.count else { return nil }
        self.seconds = Self.daysSinceEpoch(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        self.nanoseconds = nanoseconds
    }

    /// Nanoseconds from `start` to this time; `nil` if negative or more than Int64 holds.
    package func nanoseconds(since start: ISOTimestamp) -> Int64? {
        // Both are within years 1…9999: these differences cannot overflow.
        let (whole, overflow) = (seconds - start.seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        let (total, overflow2) = whole.addingReportingOverflow(nanoseconds - start.nanoseconds)
        guard !overflow2, total >= 0 else { return nil }
        return total
    }

    private static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(_ month: Int64, _ year: Int64) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian; Howard Hinnant's algorithm).
    private static func daysSinceEpoch(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension SessionSummary {
    /// How long the session ran: from `startedAt` to `endedAt` when both are readable
    /// times in that order, else the time of its last event.
    package var durationNs: Int64 {
        if let ended = endedAt, let end = ISOTimestamp(ended), let start = ISOTimestamp(startedAt),
           let ns = end.nanoseconds(since: start) {
            return ns
        }
        return lastTimeNs
    }
}
