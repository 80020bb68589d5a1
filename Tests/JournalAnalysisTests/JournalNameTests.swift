import JournalStore
import Testing

/// `JournalName.capped`: names up to 1,024 UTF-8 bytes are kept as they are; a longer one
/// becomes its longest prefix cut between two scalars, then `…[N bytes, fnv HASH]`, at
/// most 1,024 bytes in all. The expected hashes were computed apart (FNV-1a 64 in Python).
struct JournalNameTests {
    @Test func namesUpToTheLimitAreKeptAsTheyAre() {
        for name in ["", "Player", String(repeating: "a", count: 1024), String(repeating: "é", count: 512)] {
            #expect(JournalName.capped(name) == name)
            #expect(!JournalName.isTooLong(name))
        }
    }

    @Test func aLongerNameIsItsPrefixWithItsLengthAndHash() {
        let name = String(repeating: "a", count: 1025)
        let capped = JournalName.capped(name)
        #expect(capped == String(repeating: "a", count: 987) + "…[1025 bytes, fnv 6a424025ce84288c]")
        #expect(capped.utf8.count == 1024)
        #expect(JournalName.isTooLong(name))
    }

    /// Cut between two scalars: a two-byte `é` or a four-byte emoji is never split.
    @Test func theCutNeverSplitsACharacter() {
        #expect(JournalName.capped(String(repeating: "é", count: 1000))
            == String(repeating: "é", count: 493) + "…[2000 bytes, fnv ae29b27ef9ee3205]")
        // 987 bytes fit: the 1,020 x's are cut to 987, before any emoji.
        #expect(JournalName.capped(String(repeating: "x", count: 1020) + String(repeating: "😀", count: 3))
            == String(repeating: "x", count: 987) + "…[1032 bytes, fnv f2c3cc763bd88608]")
    }

    /// Two long names that differ only past the cut stay distinct; a shortened name is
    /// not shortened again (the recorder's names read back as written).
    @Test func longNamesStayDistinctAndShorteningIsIdempotent() {
        let a = JournalName.capped(String(repeating: "K", count: 3_000_000) + "a")
        let b = JournalName.capped(String(repeating: "K", count: 3_000_000) + "b")
        #expect(a == String(repeating: "K", count: 984) + "…[3000001 bytes, fnv ec6d9a2ec3adb9cc]")
        #expect(b == String(repeating: "K", count: 984) + "…[3000001 bytes, fnv ec6d9d2ec3adbee5]")
        #expect(JournalName.capped(a) == a)
    }
}
