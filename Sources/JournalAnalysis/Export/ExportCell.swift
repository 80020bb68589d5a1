/// One field of an exported row.
package enum ExportCell: Sendable, Equatable {
    case text(String?)
    case int(Int64?)
    case bool(Bool)
    /// A list (a finding's owners, call sites, evidence): a JSON array in JSON Lines, so
    /// DuckDB, ClickHouse and pandas read it as a list; one text cell in CSV, its items
    /// joined by `separator`.
    case texts([String], separator: String)
    /// A list of numbers (a finding's sequence numbers): a JSON array of numbers in JSON
    /// Lines; in CSV one cell, space-separated.
    case ints([Int64])

    package var json: JSONValue {
        switch self {
        case let .text(value): return .text(value)
        case let .int(value): return .number(value)
        case let .bool(value): return .bool(value)
        case let .texts(values, _): return .array(values.map(JSONValue.string))
        case let .ints(values): return .array(values.map(JSONValue.int))
        }
    }
}
