import Foundation

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
        guard let colon = callSite.lastIndex(of: ":"), let line = Int(callSite[callSite.index(after: colon)...]) else {
            return nil
        }
        let file = String(callSite[..<colon])
        let parts = file.split(separator: "/").map(String.init)
        guard let name = parts.last else { return nil }
        let candidates = filesByName[name] ?? []
        if parts.count > 1, let module = parts.first,
           let match = candidates.first(where: { $0.split(separator: "/").dropLast().contains(Substring(module)) }) {
            return Location(path: match, line: line)
        }
        if candidates.count == 1 { return Location(path: candidates[0], line: line) }
        return Location(path: file, line: line)
    }
}
