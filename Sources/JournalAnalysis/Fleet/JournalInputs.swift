import Foundation

/// The journals named on a command line: files as given, directories searched
/// recursively for `*.sqlite` files (sorted, so output is stable).
package enum JournalInputs {
    /// The files to read, in order: each path given, a directory replaced by the `.sqlite`
    /// files under it. A path that does not exist is kept (opening it gives the error).
    package static func expand(_ paths: [String]) -> [String] {
        var result: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                result.append(path)
                continue
            }
            var found: [String] = []
            // A directory named through a symlink is searched where the link leads.
            let base = URL(fileURLWithPath: path).resolvingSymlinksInPath()
            if let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) {
                while let url = walker.nextObject() as? URL {
                    guard url.pathExtension == "sqlite" else { continue }
                    let values = try? url.resourceValues(forKeys: [.isRegularFileKey])
                    guard values?.isRegularFile == true else { continue }
                    let relative = String(url.standardizedFileURL.path.dropFirst(base.standardizedFileURL.path.count))
                    found.append((path.hasSuffix("/") ? String(path.dropLast()) : path) + relative)
                }
            }
            result += found.sorted()
        }
        return result
    }
}
