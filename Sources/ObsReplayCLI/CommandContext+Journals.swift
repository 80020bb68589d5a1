import SystemShim
import JournalAnalysis

extension CommonOptions {
    /// One or more journal files or directories.
    static let journals = CommandSpec.Argument(
        "journal", help: "Journal files, or directories searched for *.sqlite (opened read-only).", variadic: true
    )
}

extension CommandContext {
    /// Calls `body` with each journal `paths` (the `journal` arguments) name, opened
    /// read-only one at a time (each closed before the next opens), and returns whether
    /// they were many. One file: as always, its error is the command's (exit 2). Several
    /// paths or a directory: expanded, and a file that is not a journal is skipped with a
    /// one-line notice; a damaged journal is an error (exit 2); none found is an error.
    @discardableResult
    func forEachJournal(_ paths: [String], _ body: (JournalReader) throws(CLIError) -> Void) throws(CLIError) -> Bool {
        if paths.count == 1, fileStatus(paths[0]).map({ $0.st_mode & S_IFMT == S_IFDIR }) != true {
            try body(try openJournal(paths[0]))
            return false
        }
        var found = 0
        for path in JournalInputs.expand(paths) {
            let reader: JournalReader
            do {
                reader = try JournalReader(path: path)
            } catch {
                guard error.isNotAJournal else { throw .analysis(error) }
                message("note: skipped \(error.description)")
                continue
            }
            found += 1
            try body(reader)
        }
        if found == 0 { throw .input("no journal found in \(paths.joined(separator: ", "))") }
        return true
    }
}
