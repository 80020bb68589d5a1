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

    /// JSON over several lines, two spaces per level, keys in the order given, ending in a
    /// newline: for files that are committed and reviewed (baselines), so a change is a
    /// readable diff. Empty arrays and objects stay on one line.
    package var pretty: String {
        var out = ""
        renderPretty(into: &out, indent: "")
        return out + "\n"
    }

    private func renderPretty(into out: inout String, indent: String) {
        let inner = indent + "  "
        switch self {
        case let .array(values) where !values.isEmpty:
            out += "[\n"
            for (index, value) in values.enumerated() {
                out += inner
                value.renderPretty(into: &out, indent: inner)
                out += index == values.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        case let .object(members) where !members.isEmpty:
            out += "{\n"
            for (index, (key, value)) in members.enumerated() {
                out += inner
                Self.renderString(key, into: &out)
                out += ": "
                value.renderPretty(into: &out, indent: inner)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        default:
            render(into: &out)
        }
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
        // Most texts (names, numbers' text, values) are printable ASCII with nothing to
        // escape: appended whole, not scalar by scalar.
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 >= 0x7F }) {
            out += value
            out += "\""
            return
        }
        let scalars = value.unicodeScalars
        // The text between escapes is appended as one run.
        var run = scalars.startIndex
        var index = run
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let escaped: String?
            switch scalar {
            case "\"": escaped = "\\\""
            case "\\": escaped = "\\\\"
            case "\n": escaped = "\\n"
            case "\r": escaped = "\\r"
            case "\t": escaped = "\\t"
            // Controls, C1 (U+0080–U+009F: U+009B is a terminal's CSI), bidi overrides and
            // isolates, invisible formatting: escaped always, not only on a terminal —
            // still valid JSON with the same value, and never acted on where it is shown.
            case _ where TerminalText.needsEscape(scalar) || scalar == "\u{2028}" || scalar == "\u{2029}":
                // Beyond the BMP (tag characters), JSON spells a scalar as a surrogate pair.
                escaped = String(scalar).utf16.map { unit in
                    let hex = String(unit, radix: 16)
                    return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }.joined()
            default:
                escaped = nil
            }
            let next = scalars.index(after: index)
            if let escaped {
                if run < index { out += Substring(scalars[run..<index]) }
                out += escaped
                run = next
            }
            index = next
        }
        if run < scalars.endIndex { out += Substring(scalars[run..<scalars.endIndex]) }
        out += "\""
    }
}
