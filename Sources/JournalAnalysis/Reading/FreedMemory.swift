import SystemShim

/// Hands the pages the allocator holds free back to the system.
///
/// A diagnosis's state grows in many small steps (dictionaries and arrays doubling, per
/// channel and per owner), and glibc's allocator keeps the blocks they leave behind inside
/// its heap: over a 4M-event session the process's resident memory grew twice as fast as
/// what it held (6 MB of free pages at the end, measured with a trimming preload). Calling
/// `malloc_trim` now and then returns whole free pages in the middle of the heap too. It is
/// looked up at run time on glibc; elsewhere (musl, Darwin, which return memory on their own
/// terms) `release` does nothing.
enum FreedMemory {
    private typealias Trim = @convention(c) (Int) -> Int32

    /// glibc's `malloc_trim`, if this C library has it (glibc's `RTLD_DEFAULT` is the null
    /// handle; elsewhere the null handle means something else, or nothing, so no look-up).
    #if canImport(Glibc)
    private static let trim: Trim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
        .map { unsafeBitCast($0, to: Trim.self) }
    #else
    private static let trim: Trim? = nil
    #endif

    /// Returns free pages to the system; whether the C library could.
    @discardableResult
    static func release() -> Bool {
        guard let trim else { return false }
        _ = trim(0)
        return true
    }

    /// How many events a streaming pass reads between two releases: often enough that the
    /// free pages never pile up far, rarely enough to cost nothing measurable (a release
    /// walks the allocator's free lists once).
    static let eventsBetweenReleases = 1 << 14
}
