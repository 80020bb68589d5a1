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

    /// A JSON string literal: quotes, backslashes and control characters escaped; other
    /// text kept as UTF-8.
    static func renderString(_ value: String, into out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{2028}" || scalar == "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
