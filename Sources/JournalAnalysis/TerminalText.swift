import SystemShim

/// Makes text from a journal safe to show a person: on a terminal, and (before HTML
/// escaping) in the HTML report.
///
/// A journal is input like any other: type names, keys and values may hold escape
/// sequences, control characters or bidirectional overrides that would recolour, move
/// the cursor, retitle the window or reorder what a person reads. Every line of human
/// output goes through `escaped` before it is written.
package enum TerminalText {
    /// `text` with C0/C1 control characters, DEL and bidi/invisible formatting
    /// characters replaced by visible escapes (`\n`, `\t`, `\u{1B}`, `\u{202E}`).
    package static func escaped(_ text: String) -> String {
        escaped(text, keepingLineBreaks: false)
    }

    /// `escaped`, but `\n` and the `\r` of `\r\n` are left as they are: a CSV or JSON
    /// Lines document shown on a terminal keeps its rows.
    package static func escapedKeepingLineBreaks(_ text: String) -> String {
        escaped(text, keepingLineBreaks: true)
    }

    private static func escaped(_ text: String, keepingLineBreaks: Bool) -> String {
        // Printable ASCII needs nothing, and its bytes say so without decoding scalars:
        // most of what findings print is.
        if isPrintableASCII(text) { return text }
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            let lineBreak = scalar == "\n" || (scalar == "\r" && index + 1 < scalars.count && scalars[index + 1] == "\n")
            guard needsEscape(scalar), !(keepingLineBreaks && lineBreak) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }

    /// The longest value human output shows, in characters.
    package static let valueLimit = 200

    /// A recorded value as human output shows it: at most `limit` characters, then `…`;
    /// `nil` as `nil`. A journal may hold values of megabytes, and a line a megabyte long
    /// helps nobody (`export` gives them whole).
    package static func value(_ text: String?, limit: Int = valueLimit) -> String {
        guard let text else { return "nil" }
        // prefix(limit + 1) keeps this O(limit) for a value of any length.
        let head = text.prefix(limit + 1)
        return head.count > limit ? String(head.prefix(limit)) + "…" : text
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x00AD, 0x061C, 0x180E, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2069, 0xFEFF: return true
        // Interlinear annotation and tag characters: invisible, and able to carry text.
        case 0xFFF9...0xFFFB, 0xE0000...0xE007F: return true
        default: return false
        }
    }
}
