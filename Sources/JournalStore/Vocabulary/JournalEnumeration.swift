/// One of the journal's enumerations: a column whose values the schema lists (event kinds,
/// removal and skip reasons, delivery policies). Spelled once, here, as Swift cases: the
/// case's name is the text older journals store and the lookup tables hold, its raw value
/// the small integer newer journals store. `VocabularyTests` checks both against the
/// schema, so the writer, the readers and the SQL cannot drift apart.
///
/// Codes are positions: `0, 1, 2, …` in declaration order, and a new value is appended,
/// never inserted, because journals already written keep their codes.
package protocol JournalEnumeration: RawRepresentable, CaseIterable, Hashable, Sendable
where RawValue == Int, AllCases == [Self] {
    /// The names, by code (`names[code]`); built once from the case names.
    static var names: [String] { get }
    /// The values, by name.
    static var byName: [String: Self] { get }
}

extension JournalEnumeration {
    /// The name stored in text columns and shown to people: `ownerDeallocated`.
    package var name: String { Self.names[rawValue] }

    /// The code stored in integer columns.
    package var code: Int64 { Int64(rawValue) }

    /// The value a name stands for; `nil` for a name this version does not know (a newer
    /// writer's).
    package init?(name: String) {
        guard let value = Self.byName[name] else { return nil }
        self = value
    }

    /// The value a stored code stands for; `nil` for a code this version does not know.
    package init?(code: Int64) {
        guard let raw = Int(exactly: code), let value = Self(rawValue: raw) else { return nil }
        self = value
    }

    /// `names` from the cases (for the conformances' `static let`).
    static func caseNames() -> [String] { allCases.map { String(describing: $0) } }

    /// `byName` from the cases (for the conformances' `static let`).
    static func caseNamesToValues() -> [String: Self] {
        Dictionary(uniqueKeysWithValues: allCases.map { (String(describing: $0), $0) })
    }
}
