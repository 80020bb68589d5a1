@testable import JournalAnalysis
import Testing

// glibc keeps freed blocks in its heap; the diagnosis hands whole free pages back now and
// then. Where the C library has no such call, releasing does nothing and says so.

@Test func freedMemoryIsReleasedWhereTheCLibraryCanDoIt() {
    #if canImport(Glibc)
    #expect(FreedMemory.release())
    #else
    #expect(!FreedMemory.release())
    #endif
    #expect(FreedMemory.eventsBetweenReleases == 16_384)
}
