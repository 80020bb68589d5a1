package import Foundation
import SystemShim

/// A directory of its own for one test, removed when the object goes away.
///
/// Every scratch directory lives under `ScratchDirectory.processRoot`, which is removed
/// when the test process exits: a directory whose owner is still referenced at the end
/// (or one made by `temporaryDirectory()`) is removed then. Thread-safe: the path never
/// changes, and removal happens once, in `deinit`.
///
/// Swift may end an object's life after its last use, before the end of its scope: keep
/// the object in use while its files are (use `path(_:)` through it), or use
/// `withScratchDirectory(_:)`.
package final class ScratchDirectory: Sendable {
    /// The directory.
    package let url: URL

    /// Creates a fresh, empty directory; `label` starts its name, to tell tests apart
    /// in a listing.
    package init(_ label: String = "scratch") throws {
        url = ScratchDirectory.processRoot.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The directory's path.
    package var directory: String { url.path }

    /// The path of `name` in the directory.
    package func path(_ name: String = "journal.sqlite") -> String { url.appendingPathComponent(name).path }

    /// The URL of `name` in the directory.
    package func appendingPathComponent(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The directory under which every scratch directory of this process is made; child
    /// processes get it as `TMPDIR`. Created on first use and removed, with all it holds,
    /// when the process exits normally.
    package static let processRoot: URL = {
        let root = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("ObservationJournalTests-\(getpid())-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            preconditionFailure("cannot create the tests' scratch root \(root.path): \(error)")
        }
        atexit { removeProcessRoot() }
        return root
    }()
}

/// Removes the process's scratch root (the `atexit` handler, which cannot capture).
private func removeProcessRoot() {
    try? FileManager.default.removeItem(at: ScratchDirectory.processRoot)
}

/// Runs `body` with a fresh scratch directory and removes it afterwards, whatever `body`
/// returns or throws.
package func withScratchDirectory<T>(
    _ label: String = "scratch", _ body: (ScratchDirectory) throws -> T
) throws -> T {
    let scratch = try ScratchDirectory(label)
    return try withExtendedLifetime(scratch) { try body(scratch) }
}

/// A fresh directory for one test's files, removed when the test process exits (it lives
/// under `ScratchDirectory.processRoot`). For a directory removed as soon as the test
/// ends, use `ScratchDirectory` or `withScratchDirectory(_:)`.
package func temporaryDirectory(_ label: String = "test") throws -> URL {
    let url = ScratchDirectory.processRoot.appendingPathComponent("\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
