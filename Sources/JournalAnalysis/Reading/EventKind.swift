package import JournalStore

/// The kinds of event rows, as the analysis names them: the journal's own vocabulary.
package typealias EventKind = JournalEventKind
