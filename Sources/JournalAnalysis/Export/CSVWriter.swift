/// Writes rows as CSV per RFC 4180: a header row, CRLF line ends, fields with commas,
/// quotes or line breaks quoted with quotes doubled, UTF-8.
///
/// Unless `raw`, a text cell starting with `=`, `+`, `-`, `@`, tab or carriage return is
/// prefixed with `'` (OWASP's advice against spreadsheet formula injection), so a
/// spreadsheet shows it instead of evaluating it. Numbers are never altered, neither number
/// cells nor text cells that are a plain number (`-3`): a spreadsheet reads those as numbers.
package struct CSVWriter {
    package var raw: Bool

    package init(raw: Bool = false) {
        self.raw = raw
    }

    /// The header line.
    package func header(_ columns: [String]) -> String {
        columns.map { field($0) }.joined(separator: ",") + "\r\n"
    }

    /// One record line.
    package func record(_ cells: [ExportCell]) -> String {
        var line = ""
        for (index, cell) in cells.enumerated() {
            if index > 0 { line += "," }
            switch cell {
            case let .text(value): line += field(value.map { raw ? $0 : neutralised($0) } ?? "")
            case let .int(value): line += value.map(String.init) ?? ""
            case let .bool(value): line += value ? "true" : "false"
            case let .texts(values, separator):
                let joined = values.joined(separator: separator)
                line += field(raw ? joined : neutralised(joined))
            case let .ints(values):
                let joined = values.map(String.init).joined(separator: " ")
                line += field(raw ? joined : neutralised(joined))
            }
        }
        return line + "\r\n"
    }

    /// `text` with a leading `'` if a spreadsheet would treat it as a formula. A plain
    /// number (`-3`, `+1.5`, `-2e3`) is a number to a spreadsheet, not a formula, and is
    /// left alone so it loads as a number.
    package func neutralised(_ text: String) -> String {
        guard let first = text.unicodeScalars.first else { return text }
        switch first {
        case "=", "@", "\t", "\r": return "'" + text
        case "+", "-": return Self.isPlainNumber(text) ? text : "'" + text
        default: return text
        }
    }

    /// `-3`, `+1.5`, `-2e3`: a sign, digits, an optional fraction and exponent, nothing else.
    static func isPlainNumber(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        if let sign = scalars.first, sign == "+" || sign == "-" { scalars = scalars.dropFirst() }
        func digits() -> Int {
            let count = scalars.prefix { ("0"..."9").contains($0) }.count
            scalars = scalars.dropFirst(count)
            return count
        }
        var mantissa = digits()
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let e = scalars.first, e == "e" || e == "E" {
            scalars = scalars.dropFirst()
            if let sign = scalars.first, sign == "+" || sign == "-" { scalars = scalars.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return scalars.isEmpty
    }

    /// `text` quoted if it needs to be.
    func field(_ text: String) -> String {
        let needsQuotes = text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }
        guard needsQuotes else { return text }
        return "\"" + text.replacingQuotes() + "\""
    }
}

extension String {
    func replacingQuotes() -> String {
        var out = ""
        out.reserveCapacity(utf8.count + 2)
        for character in unicodeScalars {
            if character == "\"" { out += "\"\"" } else { out.unicodeScalars.append(character) }
        }
        return out
    }
}
