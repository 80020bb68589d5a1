/// The text stored for a change's value, kept as the number or bool it describes when it is
/// one: the writer binds its digits from a buffer on the stack instead of making a `String`
/// for it. The text bound is `string`.
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

extension SQLiteStatement {
    /// Binds a value's text at `index` (NULL for `nil`).
    package func bind(_ value: ValueText?, at index: Int32) throws(SQLiteError) {
        switch value {
        case nil: try bind(nil as Int64?, at: index)
        case .text(let text)?: try bind(text, at: index)
        case .bool(let flag)?: try bind(literal: flag ? "true" : "false", at: index)
        case .integer(let number)?:
            // At most 20 bytes: a sign and 19 digits.
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { (buffer) throws(SQLiteError) in
                var magnitude = number.magnitude
                var start = 20
                repeat {
                    start -= 1
                    buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                } while magnitude > 0
                if number < 0 {
                    start -= 1
                    buffer[start] = UInt8(ascii: "-")
                }
                try bind(copiedText: UnsafeBufferPointer(rebasing: buffer[start...]), at: index)
            }
        }
    }
}
