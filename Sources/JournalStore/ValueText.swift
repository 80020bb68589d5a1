/// The text stored for a change's value, kept as the number or bool it describes when it is
/// one: the writer then writes its digits straight into the block instead of making a
/// `String` and escaping it (about a thousand instructions per value on the writer thread).
/// The bytes written are those of `string`.
package enum ValueText {
    /// Any text.
    case text(String)
    /// An `Int`'s description: its decimal digits.
    case integer(Int64)
    /// A `Bool`'s description: `true` or `false`.
    case bool(Bool)

    /// The text itself (for `event_rows`).
    package var string: String {
        switch self {
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .bool(let value): return value ? "true" : "false"
        }
    }
}

extension EventBlockEncoder {
    /// The next column: a value's text, or NULL.
    @inline(__always)
    package mutating func text(_ value: ValueText?) {
        switch value {
        case nil: text(nil as String?)
        case .text(let text)?: self.text(text)
        case .integer(let number)?: quotedInt(number)
        case .bool(let flag)?: quotedBool(flag)
        }
    }
}
