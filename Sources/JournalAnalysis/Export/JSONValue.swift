/// A JSON value with object keys kept in the order given, so output is stable.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.rendered == rhs.rendered }

    /// `.string` or `.null`.
    package static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    /// `.int` or `.null`.
    package static func number(_ value: Int64?) -> JSONValue { value.map(JSONValue.int) ?? .null }

    /// Compact JSON on one line.
    package var rendered: String {
        var out = ""
        render(into: &out)
        return out
    }

    package func render(into out: inout String) {
        switch self {
        case .null: out += "null"
        case let .bool(value): out += value ? "true" : "false"
        case let .int(value): out += String(value)
        case let .double(value): out += value.isFinite ? String(value) : "null"
        case let .string(value): Self.renderString(value, into: &out)
        case let .array(values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.render(into: &out)
            }
            out += "]"
        case let .object(members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                Self.renderString(key, into: &out)
                out += ":"
                value.render(into: &out)
            }
            out += "}"
        }
    }

    /// A JSON string literal: quotes, backslashes, control characters and invisible or
    /// bidi formatting characters escaped (`\u009b`, `\u202e`); other text kept as UTF-8.
    static func renderString(_ value: String, into out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            // Controls, C1 (U+0080–U+009F: U+009B is a terminal's CSI), bidi overrides and
            // isolates, invisible formatting: escaped always, not only on a terminal —
            // still valid JSON with the same value, and never acted on where it is shown.
            case _ where TerminalText.needsEscape(scalar) || scalar == "\u{2028}" || scalar == "\u{2029}":
                // Beyond the BMP (tag characters), JSON spells a scalar as a surrogate pair.
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
