/// A finding with the journal it came from: what the CI output formats and the fleet
/// commands work on.
package struct JournalFinding: Sendable, Equatable {
    /// The journal's path as given on the command line.
    package var journal: String
    package var finding: Finding

    package init(journal: String, finding: Finding) {
        self.journal = journal
        self.finding = finding
    }
}
