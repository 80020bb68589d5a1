import Foundation
import JournalStore
import SystemShim

/// The journals named on a command line: files as given, directories searched
/// recursively for `*.sqlite` files (sorted, so output is stable).
package enum JournalInputs {
    /// The files to read, in order: each path given, a directory replaced by the `.sqlite`
    /// files under it. A path that does not exist is kept (opening it gives the error).
    ///
    /// Names are read as bytes: a file or folder whose name is not UTF-8 cannot be named by
    /// a `String`, so it is listed with each byte that is not UTF-8 written `\xHH`, and
    /// opening it fails with a sentence saying so (`JournalFile.checkRegularNonEmptyFile`)
    /// — never passed over in silence.
    package static func expand(_ paths: [String]) -> [String] {
        var result: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                result.append(path)
                continue
            }
            var found: [String] = []
            let base = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
            walk(Array(base.utf8), shown: base, into: &found)
            result += found.sorted()
        }
        return result
    }

    /// Adds the `.sqlite` regular files under the directory `bytes` (shown as `shown`) to
    /// `found`, descending into directories (not symbolic links). One directory is open at
    /// a time: its names are read, it is closed, then its subdirectories are walked.
    private static func walk(_ bytes: [UInt8], shown: String, into found: inout [String]) {
        guard let names = directoryEntryNames(bytes) else { return }
        let prefix = bytes.last == UInt8(ascii: "/") ? bytes : bytes + [UInt8(ascii: "/")]
        let shownPrefix = shown.hasSuffix("/") ? shown : shown + "/"
        for name in names {
            let child = prefix + name
            var status = stat()
            guard lstat(child.map { CChar(bitPattern: $0) } + [0], &status) == 0 else { continue }
            let type = status.st_mode & S_IFMT
            if type == S_IFDIR {
                walk(child, shown: shownPrefix + JournalFile.shownName(name), into: &found)
            } else if type == S_IFREG, name.count > 7, name.suffix(7).elementsEqual(".sqlite".utf8) {
                found.append(shownPrefix + JournalFile.shownName(name))
            }
        }
    }
}
