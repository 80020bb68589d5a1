import Foundation
import SystemShim

/// Findings held in their printing order without being held in memory: each finding is
/// encoded as it is made and, past a small buffer, written to an unlinked temporary file;
/// so are their sort keys, in sorted runs of at most `runLength`, merged when the spool is
/// drained.
///
/// A long session makes findings in proportion to its history (one per registration
/// called off main, per replaced callback...), about 1.7 KB each as values; they are
/// printed ordered by session, first sequence number and rule code, so none can be printed
/// before the session's last event. Spooled, a diagnosis's memory stays flat in the number
/// of events: a 40-byte key per finding kept in memory until the end grew with them too
/// (1.4 MB, and twice that in array capacity, for 35,000 findings), so the spool keeps one
/// run of keys and, while draining, a small window of each run written out. The file is
/// unlinked as soon as it is created: nothing is left in the temporary directory, even
/// after a crash. Not thread-safe: one spool per diagnosis.
package final class FindingSpool {
    private struct Key {
        var group: Int32
        /// The rule's place in the order of rule codes (`rank`).
        var rule: Int32
        var firstSeq: Int64
        var ordinal: Int64
        var offset: Int64
        var length: Int32

        /// The printing order; `ordinal` is unique, so the order is total and a merge of
        /// sorted runs gives exactly what one sort of all the keys gave.
        static func precedes(_ a: Key, _ b: Key) -> Bool {
            (a.group, a.firstSeq, a.rule, a.ordinal) < (b.group, b.firstSeq, b.rule, b.ordinal)
        }
    }

    /// A run of sorted keys written to the file.
    private struct Run {
        var offset: Int64
        var count: Int
    }

    /// Each rule's place when rules are ordered by code: sorting compares these, not strings.
    private static let rank: [Rule: Int32] = Dictionary(
        uniqueKeysWithValues: Rule.allCases.sorted { $0.code < $1.code }.enumerated().map { ($1, Int32($0)) }
    )

    /// The encoded findings not yet written to the file (all of them while they are few).
    private var buffer: [UInt8] = []
    /// Bytes already in the file; the buffer starts there.
    private var flushed: Int64 = 0
    private let file = SpoolFile()
    /// The keys not yet written out as a run (all of them while they are few).
    private var keys: [Key] = []
    private var runs: [Run] = []
    /// Findings added since the spool was last drained.
    private var added = 0
    private var group: Int32 = 0
    /// Past this, the buffer goes to the file.
    private let bufferLimit: Int
    /// Past this many keys in memory, they are sorted and written out as a run.
    private let runLength: Int
    /// How many keys of each run are read back at a time while draining.
    private let window: Int

    /// An empty spool. `bufferLimit`: how many encoded bytes stay in memory before the
    /// temporary file is made; `runLength`: how many sort keys stay in memory before they
    /// go to the file as a sorted run (tests pass small ones to exercise the file).
    package init(bufferLimit: Int = 256 * 1024, runLength: Int = 4096) {
        self.bufferLimit = bufferLimit
        self.runLength = max(runLength, 1)
        window = max(min(runLength, 256), 1)
    }

    /// How many findings the spool holds.
    package var count: Int { added }

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
            group: group, rule: Self.rank[finding.rule] ?? -1, firstSeq: finding.firstSeq, ordinal: Int64(added), offset: offset,
            length: Int32(flushed + Int64(buffer.count) - offset)
        ))
        added += 1
        guard failure == nil else { return }
        do throws(AnalysisError) {
            if keys.count >= runLength {
                try writeRun()
            } else if buffer.count >= bufferLimit {
                try flush()
            }
        } catch {
            failure = error
        }
    }

    /// Calls `body` with every finding, by group, first sequence number and rule code
    /// (findings equal on these in the order they were added), and empties the spool.
    package func drain(_ body: (Finding) throws(AnalysisError) -> Void) throws(AnalysisError) {
        if let failure { throw failure }
        keys.sort(by: Key.precedes)
        if runs.isEmpty {
            let all = keys
            keys = []
            for key in all { try body(try read(key)) }
        } else {
            try merge { key throws(AnalysisError) in try body(try read(key)) }
        }
        keys = []
        runs = []
        added = 0
        buffer = []
        flushed = 0
        file.reset()
    }

    /// The finding a key points at, from the buffer or the file.
    private func read(_ key: Key) throws(AnalysisError) -> Finding {
        let finding: Finding?
        if key.offset >= flushed {
            let start = Int(key.offset - flushed)
            finding = FindingCoding.decode(buffer[start..<(start + Int(key.length))])
        } else {
            finding = FindingCoding.decode(try file.read(Int(key.length), of: UInt8.self, at: key.offset)[...])
        }
        guard let finding else { throw .output(path: "findings spool", detail: "damaged record") }
        return finding
    }

    /// Hands out the keys of every run and of `keys` (sorted) in order: a window of each
    /// run is read at a time, the next key chosen by a binary heap over the sources.
    private func merge(_ body: (Key) throws(AnalysisError) -> Void) throws(AnalysisError) {
        // Source i < runs.count reads run i; the last source is `keys`.
        var windows: [[Key]] = Array(repeating: [], count: runs.count + 1)
        var positions = Array(repeating: 0, count: runs.count + 1)
        var consumed = Array(repeating: 0, count: runs.count)
        windows[runs.count] = keys
        keys = []
        func current(_ source: Int) -> Key { windows[source][positions[source]] }
        /// Refills a run's window when it is used up; whether the source has a key left.
        func ready(_ source: Int) throws(AnalysisError) -> Bool {
            if positions[source] < windows[source].count { return true }
            guard source < runs.count, consumed[source] < runs[source].count else { return false }
            let count = min(window, runs[source].count - consumed[source])
            let stride = Int64(MemoryLayout<Key>.stride)
            windows[source] = try file.read(count, of: Key.self, at: runs[source].offset + Int64(consumed[source]) * stride)
            consumed[source] += count
            positions[source] = 0
            return true
        }
        var heap: [Int] = []
        func less(_ a: Int, _ b: Int) -> Bool { Key.precedes(current(heap[a]), current(heap[b])) }
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, less(left, smallest) { smallest = left }
                if right < heap.count, less(right, smallest) { smallest = right }
                guard smallest != parent else { return }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        for source in windows.indices where try ready(source) { heap.append(source) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        while let source = heap.first {
            try body(current(source))
            positions[source] += 1
            if try ready(source) {
                siftDown(0)
            } else {
                heap.swapAt(0, heap.count - 1)
                heap.removeLast()
                if !heap.isEmpty { siftDown(0) }
            }
        }
    }

    /// Sorts the keys in memory and writes them out as a run, after the findings before them.
    private func writeRun() throws(AnalysisError) {
        keys.sort(by: Key.precedes)
        try flush()
        let offset = flushed
        let size = keys.count * MemoryLayout<Key>.stride
        try file.write(contentsOf: keys, at: offset)
        flushed += Int64(size)
        runs.append(Run(offset: offset, count: keys.count))
        keys.removeAll(keepingCapacity: true)
    }

    private func flush() throws(AnalysisError) {
        try file.write(contentsOf: buffer, at: flushed)
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
        int(finding.specificFix == nil ? 0 : 1)
        if let fix = finding.specificFix { text(fix) }
        let functions = finding.functions.sorted { $0.key < $1.key }
        texts(functions.map(\.key))
        texts(functions.map(\.value))
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
        guard let count = int(), let hasFix = int() else { return nil }
        var fix: String?
        if hasFix != 0 {
            guard let value = text() else { return nil }
            fix = value
        }
        guard let functionSites = texts(), let functionNames = texts(), functionSites.count == functionNames.count else {
            return nil
        }
        // Fields set as stored: the initialiser's sorting and de-duplication already ran.
        var finding = Finding(rule: rule, severity: severity, sessionID: session, message: message)
        finding.evidence = evidence
        finding.seqs = seqs
        finding.callSites = callSites
        finding.owners = owners
        finding.channel = channel
        finding.count = Int(count)
        finding.specificFix = fix
        finding.functions = Dictionary(zip(functionSites, functionNames)) { first, _ in first }
        return finding
    }
}
