import JournalAnalysis

/// The text a session's report shows (names, call sites, values), each distinct text
/// stored once and referred to by a 1-based index (0: none).
///
/// Text is made visible first (`TerminalText.escaped`: control and bidi characters as
/// `\u{…}`), values are cut to `valueLimit` characters, and once the table holds
/// `budget` bytes further values are replaced by one placeholder: the report's size stays
/// bounded however large or varied a journal's values are.
package struct ReportStrings {
    package private(set) var values: [String] = []
    private var index: [String: Int] = [:]
    private var bytes = 0
    let valueLimit: Int
    let budget: Int

    /// Shown instead of values once the table is full.
    package static let omitted = "(value left out: the report's size limit was reached)"

    package init(valueLimit: Int = 120, budget: Int = 2_000_000) {
        self.valueLimit = valueLimit
        self.budget = budget
    }

    /// The index of a name (type, channel, call site, label...): never cut or left out,
    /// since names are few (they follow objects and call sites, not events).
    package mutating func name(_ text: String?) -> Int {
        guard let text else { return 0 }
        return store(TerminalText.escaped(text))
    }

    /// The index of a recorded value: cut to `valueLimit` characters, left out past the
    /// budget.
    package mutating func value(_ text: String?) -> Int {
        guard let text else { return 0 }
        var visible = TerminalText.escaped(text)
        if visible.count > valueLimit { visible = String(visible.prefix(valueLimit)) + "…" }
        if let existing = index[visible] { return existing }
        if bytes + visible.utf8.count > budget { return store(Self.omitted) }
        return store(visible)
    }

    /// The text at a 1-based index.
    package func text(_ index: Int) -> String? {
        index > 0 && index <= values.count ? values[index - 1] : nil
    }

    private mutating func store(_ text: String) -> Int {
        if let existing = index[text] { return existing }
        values.append(text)
        bytes += text.utf8.count
        index[text] = values.count
        return values.count
    }
}
