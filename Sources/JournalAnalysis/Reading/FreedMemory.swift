import SystemShim

/// Hands the pages the allocator holds free back to the system.
///
/// A diagnosis's state grows in many small steps (dictionaries and arrays doubling, per
/// channel and per owner), and glibc's allocator keeps the blocks they leave behind inside
/// its heap: over a 4M-event session the process's resident memory grew twice as fast as
/// what it held (6 MB of free pages at the end, measured with a trimming preload). Calling
/// `malloc_trim` now and then returns whole free pages in the middle of the heap too
/// (`releaseFreeHeapPages`: glibc only; elsewhere `release` does nothing).
enum FreedMemory {
    /// Returns free pages to the system; whether the C library could.
    @discardableResult
    static func release() -> Bool {
        releaseFreeHeapPages()
    }

    /// How many events a streaming pass reads between two releases: often enough that the
    /// free pages never pile up far, rarely enough to cost nothing measurable (a release
    /// walks the allocator's free lists once).
    static let eventsBetweenReleases = 1 << 14
}
