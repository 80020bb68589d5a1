/// The longest name a journal holds or a reader shows, and how a longer one is shortened.
///
/// Names are the catalog's texts that output repeats for every event or row that refers
/// to them: type names, channel keys, call sites' files and functions, queue labels,
/// scope names, and a session's label, process and host. A journal from elsewhere may
/// hold a name of megabytes; repeated per event, an 8 MB channel key made `timeline` of a
/// 10 MB journal write 16 GB. The recorder writes no longer name (it shortens one before
/// interning it) and the reader shortens any longer one where it loads it, the same way,
/// so output stays proportional to the journal.
///
/// A shortened name is the longest prefix that, cut between two Unicode scalars (never
/// inside a UTF-8 sequence), fits with a marker in `maxBytes`:
/// `prefix…[8388608 bytes, fnv 0123456789abcdef]`, the full text's UTF-8 length and the
/// 64-bit FNV-1a hash of its UTF-8. The hash keeps two long names that share their
/// prefix distinct (findings' fingerprints are made of names), and it is the same on every
/// machine and in every run. A shortened name fits the limit, so shortening is
/// idempotent: a name the recorder shortened reads back unchanged.
package enum JournalName {
    /// The longest name, in UTF-8 bytes, marker included.
    package static let maxBytes = 1024

    /// `text` unchanged if it fits `maxBytes`, else shortened as the type describes.
    package static func capped(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.count > maxBytes else { return text }
        let marker = "…[\(utf8.count) bytes, fnv \(hex(fnv1a(utf8)))]"
        var end = utf8.index(utf8.startIndex, offsetBy: maxBytes - marker.utf8.count)
        while end > utf8.startIndex, UTF8.isContinuation(utf8[end]) { utf8.formIndex(before: &end) }
        return String(decoding: utf8[..<end], as: UTF8.self) + marker
    }

    /// Whether `text` is longer than a name may be.
    package static func isTooLong(_ text: String) -> Bool { text.utf8.count > maxBytes }

    /// The 64-bit FNV-1a hash of `bytes` from `basis`: stable across runs and machines
    /// (Swift's `Hasher` is seeded per process). An identity, not a security boundary.
    package static func fnv1a(_ bytes: some Sequence<UInt8>, basis: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = basis
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// `value` as 16 lowercase hexadecimal digits.
    package static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
