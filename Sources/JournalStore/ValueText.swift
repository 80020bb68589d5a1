/// The text stored for a change's value, kept as the number or bool it describes when it is
/// one: the writer stages its digits for binding instead of making a `String` for it. The text bound is `string`.
package enum ValueText: Equatable, Sendable {
    /// Any text.
    case text(String)
    /// An `Int`'s description: its decimal digits.
    case integer(Int64)
    /// A `Bool`'s description: `true` or `false`.
    case bool(Bool)

    /// The text itself.
    package var string: String {
        switch self {
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        }
    }
}
