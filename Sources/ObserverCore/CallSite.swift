/// Where in the app's source an action was requested: a registration, a removal, a post.
///
/// Captured from `#fileID`, `#line` and `#function` default arguments, so the journal can
/// say *where* a callback was registered or removed.
public struct CallSite: Sendable, Hashable, CustomStringConvertible {
    /// The file as `#fileID` gives it (`Module/File.swift`).
    public var file: String
    /// The line in `file`.
    public var line: Int
    /// The enclosing function as `#function` gives it.
    public var function: String

    /// Creates a call site from its parts.
    /// - Parameters:
    ///   - file: the file, usually `#fileID`.
    ///   - line: the line, usually `#line`.
    ///   - function: the function, usually `#function`.
    public init(file: String, line: Int, function: String) {
        self.file = file
        self.line = line
        self.function = function
    }

    /// `File.swift:42`: the file's last path component and the line.
    public var description: String {
        let name = file.split(separator: "/").last.map(String.init) ?? file
        return "\(name):\(line)"
    }
}
