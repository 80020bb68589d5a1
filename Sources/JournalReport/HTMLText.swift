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
        let visible = TerminalText.escaped(text)
        guard visible.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else {
            return visible
        }
        var out = ""
        out.reserveCapacity(visible.utf8.count + 16)
        for scalar in visible.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// JSON text made safe inside `<script type="application/json">`: `<`, `>` and `&`
    /// become `\u003c`, `\u003e`, `\u0026`, so no `</script>` or `<!--` can end or change
    /// the script element. (JSON has these characters only inside strings, where the
    /// escapes mean the same; `JSONValue` already escapes U+2028 and U+2029.)
    package static func scriptSafeJSON(_ json: String) -> String {
        guard json.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E }) else { return json }
        var out = ""
        out.reserveCapacity(json.utf8.count + 64)
        for scalar in json.unicodeScalars {
            switch scalar {
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
