/// Why events are missing (`events.reason` of `gap` rows).
package enum JournalGapReason: Int, JournalEnumeration {
    /// The recorder's buffer was full and events were dropped (`detail`: `dropped=N`).
    case bufferFull

    package static let names = caseNames()
    package static let byName = caseNamesToValues()
}
