/// One field of an exported row.
package enum ExportCell: Sendable, Equatable {
    case text(String?)
    case int(Int64?)
    case bool(Bool)

    package var json: JSONValue {
        switch self {
        case let .text(value): return .text(value)
        case let .int(value): return .number(value)
        case let .bool(value): return .bool(value)
        }
    }
}
