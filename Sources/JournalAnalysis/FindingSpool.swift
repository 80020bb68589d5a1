import Foundation
import SystemShim

/// Findings held in their printing order without being held in memory: each finding is
/// encoded as it is made and, past a small buffer, written to an unlinked temporary file;
/// only a 32-byte sort key per finding stays in memory.
///
/// A long session makes findings in proportion to its history (one per registration
/// called off main, per replaced callback...), about 1.7 KB each as values; they are
/// printed ordered by session, first sequence number and rule code, so none can be printed
/// before the session's last event. Spooled, a diagnosis's memory stays flat in the number
/// of events. The file is unlinked as soon as it is created: nothing is left in the
/// temporary directory, even after a crash. Not thread-safe: one spool per diagnosis.
package final class FindingSpool {
    private struct Key {
        var group: Int32
        /// The rule's place in the order of rule codes (`rank`).
        var rule: Int32
        var firstSeq: Int64
        var ordinal: Int64
        var offset: Int64
        var length: Int32
    }

    /// Each rule's place when rules are ordered by code: sorting compares these, not strings.
    private static let rank: [Rule: Int32] = Dictionary(
        uniqueKeysWithValues: Rule.allCases.sorted { $0.code < $1.code }.enumerated().map { ($1, Int32($0)) }
    )

    /// The encoded findings not yet written to the file (all of them while they are few).
    private var buffer: [UInt8] = []
    /// Bytes already in the file; the buffer starts there.
    private var flushed: Int64 = 0
    private var descriptor: Int32 = -1
    private var keys: [Key] = []
    private var group: Int32 = 0
    /// Past this, the buffer goes to the file.
    private let bufferLimit: Int

    /// An empty spool. `bufferLimit`: how many encoded bytes stay in memory before the
    /// temporary file is made (tests pass a small one to exercise the file).
    package init(bufferLimit: Int = 256 * 1024) {
        self.bufferLimit = bufferLimit
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// How many findings the spool holds.
    package var count: Int { keys.count }

    /// Starts the next group (a session): its findings print after every earlier group's.
    package func nextGroup() { group += 1 }

    /// The first failure to write the temporary file, reported by `drain`: findings are
    /// added from rules' `finish`, which cannot fail for it.
    private var failure: AnalysisError?

    /// Adds a finding.
    package func append(_ finding: Finding) {
        let offset = flushed + Int64(buffer.count)
        FindingCoding.encode(finding, into: &buffer)
        keys.append(Key(
            group: group, rule: Self.rank[finding.rule] ?? -1, firstSeq: finding.firstSeq, ordinal: Int64(keys.count), offset: offset,
            length: Int32(flushed + Int64(buffer.count) - offset)
        ))
        if buffer.count >= bufferLimit, failure == nil {
            do throws(AnalysisError) { try flush() } catch { failure = error }
        }
    }

    /// Calls `body` with every finding, by group, first sequence number and rule code
    /// (findings equal on these in the order they were added), and empties the spool.
    package func drain(_ body: (Finding) throws(AnalysisError) -> Void) throws(AnalysisError) {
        if let failure { throw failure }
        keys.sort { a, b in
            (a.group, a.firstSeq, a.rule, a.ordinal) < (b.group, b.firstSeq, b.rule, b.ordinal)
        }
        let all = keys
        keys = []
        var bytes: [UInt8] = []
        for key in all {
            let finding: Finding?
            if key.offset >= flushed {
                let start = Int(key.offset - flushed)
                finding = FindingCoding.decode(buffer[start..<(start + Int(key.length))])
            } else {
                bytes = [UInt8](repeating: 0, count: Int(key.length))
                let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, Int(key.length), off_t(key.offset)) }
                guard read == Int(key.length) else { throw .output(path: "findings spool", detail: "cannot read back: \(String(cString: strerror(errno)))") }
                finding = FindingCoding.decode(bytes[...])
            }
            guard let finding else { throw .output(path: "findings spool", detail: "damaged record") }
            try body(finding)
        }
        buffer = []
        flushed = 0
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }

    private func flush() throws(AnalysisError) {
        if descriptor < 0 {
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("obsreplay-findings-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).tmp").path
            descriptor = systemOpen(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else {
                throw .output(path: path, detail: "cannot create a temporary file: \(String(cString: strerror(errno)))")
            }
            // Unlinked at once: the open descriptor keeps it; nothing outlives the process.
            unlink(path)
        }
        var written = 0
        while written < buffer.count {
            let result = buffer.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + written, buffer.count - written, off_t(flushed) + off_t(written)) }
            guard result > 0 else {
                throw .output(path: "findings spool", detail: "cannot write a temporary file: \(String(cString: strerror(errno)))")
            }
            written += result
        }
        flushed += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// A finding as bytes, for `FindingSpool`: lengths and integers little-endian, strings
/// as UTF-8.
enum FindingCoding {
    static func encode(_ finding: Finding, into out: inout [UInt8]) {
        func int(_ value: Int64) { withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) } }
        func text(_ value: String) {
            var value = value
            value.withUTF8 { utf8 in
                int(Int64(utf8.count))
                out.append(contentsOf: utf8)
            }
        }
        func texts(_ values: [String]) {
            int(Int64(values.count))
            for value in values { text(value) }
        }
        text(finding.rule.code)
        text(finding.severity.rawValue)
        int(finding.sessionID)
        text(finding.message)
        texts(finding.evidence)
        int(Int64(finding.seqs.count))
        for seq in finding.seqs { int(seq) }
        texts(finding.callSites)
        texts(finding.owners)
        int(finding.channel == nil ? 0 : 1)
        if let channel = finding.channel { text(channel) }
        int(Int64(finding.count))
    }

    static func decode(_ bytes: ArraySlice<UInt8>) -> Finding? {
        var index = bytes.startIndex
        func int() -> Int64? {
            guard bytes.endIndex - index >= 8 else { return nil }
            var value: Int64 = 0
            for shift in 0..<8 { value |= Int64(bytes[index + shift]) << (8 * Int64(shift)) }
            index += 8
            return value
        }
        func text() -> String? {
            guard let count = int(), count >= 0, bytes.endIndex - index >= Int(count) else { return nil }
            defer { index += Int(count) }
            return String(decoding: bytes[index..<(index + Int(count))], as: UTF8.self)
        }
        func texts() -> [String]? {
            guard let count = int(), count >= 0 else { return nil }
            var result: [String] = []
            for _ in 0..<count {
                guard let value = text() else { return nil }
                result.append(value)
            }
            return result
        }
        guard let code = text(), let rule = Rule.allCases.first(where: { $0.code == code }),
              let severity = text().flatMap(Severity.init(rawValue:)), let session = int(), let message = text(),
              let evidence = texts(), let seqCount = int(), seqCount >= 0
        else { return nil }
        var seqs: [Int64] = []
        seqs.reserveCapacity(Int(seqCount))
        for _ in 0..<seqCount {
            guard let seq = int() else { return nil }
            seqs.append(seq)
        }
        guard let callSites = texts(), let owners = texts(), let hasChannel = int() else { return nil }
        var channel: String?
        if hasChannel != 0 {
            guard let value = text() else { return nil }
            channel = value
        }
        guard let count = int() else { return nil }
        // Fields set as stored: the initialiser's sorting and de-duplication already ran.
        var finding = Finding(rule: rule, severity: severity, sessionID: session, message: message)
        finding.evidence = evidence
        finding.seqs = seqs
        finding.callSites = callSites
        finding.owners = owners
        finding.channel = channel
        finding.count = Int(count)
        return finding
    }
}
