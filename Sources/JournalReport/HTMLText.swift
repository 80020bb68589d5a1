import JournalAnalysis

/// Makes journal text safe inside the report's HTML and its embedded data.
///
/// Journals are input: a type name, key, value or label may hold markup, quotes, control
/// characters or bidirectional overrides. Text goes through `TerminalText.escaped` first
/// (so invisible and reordering characters show as `\u{…}`), then through the escaping its
/// place in the page needs.
package enum HTMLText {
    /// Text for an element's content or a quoted attribute value: `&`, `<`, `>`, `"` and
    /// `'` as character references, control characters as visible escapes.
    package static func escaped(_ text: String) -> String {
        substituting(TerminalText.escaped(text)) { scalar in
            switch scalar {
            case "&": return "&amp;"
            case "<": return "&lt;"
            case ">": return "&gt;"
            case "\"": return "&quot;"
            case "'": return "&#39;"
            default: return nil
            }
        }
    }

    /// JSON text made safe inside `<script type="application/json">`: `<`, `>` and `&`
    /// become `\u003c`, `\u003e`, `\u0026`, so no `</script>` or `<!--` can end or change
    /// the script element. (JSON has these characters only inside strings, where the
    /// escapes mean the same; `JSONValue` already escapes U+2028 and U+2029.)
    package static func scriptSafeJSON(_ json: String) -> String {
        substituting(json) { scalar in
            switch scalar {
            case "<": return "\\u003c"
            case ">": return "\\u003e"
            case "&": return "\\u0026"
            default: return nil
            }
        }
    }

    /// `text` with each scalar `replacement` names replaced; the text itself when none is
    /// (the common case: one scan, no copy).
    static func substituting(_ text: String, _ replacement: (Unicode.Scalar) -> String?) -> String {
        guard text.unicodeScalars.contains(where: { replacement($0) != nil }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 64)
        for scalar in text.unicodeScalars {
            if let substitute = replacement(scalar) { out += substitute } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
