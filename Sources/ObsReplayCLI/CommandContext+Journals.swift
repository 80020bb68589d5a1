import Foundation
import JournalAnalysis

extension CommonOptions {
    /// One or more journal files or directories.
    static let journals = CommandSpec.Argument(
        "journal", help: "Journal files, or directories searched for *.sqlite (opened read-only).", variadic: true
    )
}

extension CommandContext {
    /// The journals `paths` (the `journal` arguments) name, opened read-only. One file: as always,
    /// its error is the command's (exit 2). Several paths or a directory: expanded, and a
    /// file that is not a journal is skipped with a one-line notice; a damaged journal is
    /// an error (exit 2). `many` says which.
    func openJournals(_ paths: [String]) throws(CLIError) -> (readers: [JournalReader], many: Bool) {
        var isDirectory: ObjCBool = false
        if paths.count == 1, !(FileManager.default.fileExists(atPath: paths[0], isDirectory: &isDirectory) && isDirectory.boolValue) {
            return ([try openJournal(paths[0])], false)
        }
        var readers: [JournalReader] = []
        for path in JournalInputs.expand(paths) {
            do {
                readers.append(try JournalReader(path: path))
            } catch {
                guard error.isNotAJournal else { throw .analysis(error) }
                message("note: skipped \(error.description)")
            }
        }
        if readers.isEmpty { throw .input("no journal found in \(paths.joined(separator: ", "))") }
        return (readers, true)
    }
}
