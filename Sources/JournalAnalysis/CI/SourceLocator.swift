import Foundation
import Synchronization

/// Turns a call site's `Module/File.swift:42` into a file under a source root, the way
/// SARIF viewers and GitHub annotations need it (`Sources/Module/File.swift`, line 42).
///
/// The root is scanned once for `.swift` files (hidden directories and `.build` are
/// skipped). A call site's file is the one of that name in a directory named after its
/// module, else the only one of that name; when neither exists the `Module/File.swift`
/// spelling is kept as it is.
package struct SourceLocator: Sendable {
    /// A place in a source file.
    package struct Location: Sendable, Equatable {
        /// The path relative to the root, `/`-separated.
        package var path: String
        package var line: Int
    }

    package let root: String
    private var filesByName: [String: [String]] = [:]
    private let lines = SourceLines()

    /// Scans `root` (an absolute or relative directory).
    package init(root: String) {
        self.root = root
        let base = URL(fileURLWithPath: root).standardizedFileURL
        guard let walker = FileManager.default.enumerator(
            at: base, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles]
        ) else { return }
        let prefix = base.path.hasSuffix("/") ? base.path : base.path + "/"
        while let url = walker.nextObject() as? URL {
            if url.lastPathComponent == ".build" || url.lastPathComponent == "node_modules" {
                walker.skipDescendants()
                continue
            }
            guard url.pathExtension == "swift" else { continue }
            let full = url.standardizedFileURL.path
            guard full.hasPrefix(prefix) else { continue }
            filesByName[url.lastPathComponent, default: []].append(String(full.dropFirst(prefix.count)))
        }
        for key in filesByName.keys { filesByName[key]!.sort() }
    }

    /// Where `callSite` (`Module/File.swift:42`) is, or `nil` when it has no line.
    package func locate(_ callSite: String) -> Location? {
        guard let (file, line) = Self.split(callSite) else { return nil }
        return Location(path: scanned(file) ?? file, line: line)
    }

    /// The text of `callSite`'s line with each run of whitespace made one space and the
    /// ends trimmed, when its file is one found under the root and has that line (not
    /// blank); `nil` otherwise.
    package func sourceLine(_ callSite: String) -> String? {
        guard let (file, line) = Self.split(callSite), line >= 1, let path = scanned(file) else { return nil }
        let text = lines.lines(of: URL(fileURLWithPath: root).appendingPathComponent(path).path)
        guard line <= text.count else { return nil }
        let words = text[line - 1].split(whereSeparator: \.isWhitespace)
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// `Module/File.swift:42` → (`Module/File.swift`, 42).
    private static func split(_ callSite: String) -> (String, Int)? {
        guard let colon = callSite.lastIndex(of: ":"), let line = Int(callSite[callSite.index(after: colon)...]) else {
            return nil
        }
        return (String(callSite[..<colon]), line)
    }

    /// The path under the root of `file` (`Module/File.swift`): the file of that name in a
    /// directory named after its module, else the only one of that name.
    private func scanned(_ file: String) -> String? {
        let parts = file.split(separator: "/").map(String.init)
        guard let name = parts.last else { return nil }
        let candidates = filesByName[name] ?? []
        if parts.count > 1, let module = parts.first,
           let match = candidates.first(where: { $0.split(separator: "/").dropLast().contains(Substring(module)) }) {
            return match
        }
        return candidates.count == 1 ? candidates[0] : nil
    }
}

/// The lines of source files, each file read once (a file larger than `limit`, or one
/// that cannot be read as UTF-8, has none).
private final class SourceLines: Sendable {
    static let limit = 8 << 20
    private let files = Mutex<[String: [Substring]]>([:])

    func lines(of path: String) -> [Substring] {
        if let known = files.withLock({ $0[path] }) { return known }
        var read: [Substring] = []
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size <= Self.limit,
           let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) {
            read = text.split(separator: "\n", omittingEmptySubsequences: false)
        }
        files.withLock { $0[path] = read }
        return read
    }
}
