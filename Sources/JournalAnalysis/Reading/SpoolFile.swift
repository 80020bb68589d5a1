import Foundation
import SystemShim

/// An unlinked temporary file that readers spill to (findings, rules' groups), made on the
/// first write: written and read at offsets, gone with the process.
///
/// The file is unlinked as soon as it is created: the open descriptor keeps it, so nothing
/// is left in the temporary directory, even after a crash. Not thread-safe.
final class SpoolFile {
    private var descriptor: Int32 = -1
    /// Where the file is made: the temporary directory unless a test names another.
    private let directory: URL

    init(directory: URL = FileManager.default.temporaryDirectory) {
        self.directory = directory
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Writes `values`' bytes at `offset`, making the file first if need be.
    func write<T: BitwiseCopyable>(contentsOf values: [T], at offset: Int64) throws(AnalysisError) {
        try open()
        if let error = values.withUnsafeBytes({ write($0, at: offset) }) { throw error }
    }

    /// Writes one value's bytes at `offset`, padded to its stride (as `read` reads it).
    func write<T: BitwiseCopyable>(_ value: T, at offset: Int64) throws(AnalysisError) {
        try write(contentsOf: [value], at: offset)
    }

    /// `count` values read from `offset`: what an earlier `write` put there.
    func read<T: BitwiseCopyable>(_ count: Int, of type: T.Type, at offset: Int64) throws(AnalysisError) -> [T] {
        var failure: AnalysisError?
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            failure = read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
            initialized = failure == nil ? count : 0
        }
        if let failure { throw failure }
        return values
    }

    /// One value read from `offset`.
    func read<T: BitwiseCopyable>(_ type: T.Type, at offset: Int64) throws(AnalysisError) -> T {
        try read(1, of: type, at: offset)[0]
    }

    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> AnalysisError? {
        var written = 0
        while written < bytes.count {
            let result = pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
            guard result > 0 else {
                return .output(path: "temporary file", detail: "cannot write: \(String(cString: strerror(errno)))")
            }
            written += result
        }
        return nil
    }

    private func read(into bytes: UnsafeMutableRawBufferPointer, at offset: Int64) -> AnalysisError? {
        var done = 0
        while done < bytes.count {
            let result = descriptor < 0 ? -1 : pread(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            guard result > 0 else {
                return .output(path: "temporary file", detail: "cannot read back: \(result == 0 ? "file too short" : String(cString: strerror(errno)))")
            }
            done += result
        }
        return nil
    }

    /// Closes (and so deletes) the file; the next write makes a new one.
    func reset() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    private func open() throws(AnalysisError) {
        guard descriptor < 0 else { return }
        let path = directory
            .appendingPathComponent("obsreplay-findings-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).tmp").path
        descriptor = systemOpen(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw .output(path: path, detail: "cannot create a temporary file: \(String(cString: strerror(errno)))")
        }
        // Unlinked at once: the open descriptor keeps it; nothing outlives the process.
        unlink(path)
    }
}
