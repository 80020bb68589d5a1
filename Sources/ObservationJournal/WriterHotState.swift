import JournalStore

/// The state `SessionWriter` touches for every event, kept where accessing it is not
/// checked for exclusivity at run time: each access to a class's stored `var` calls the
/// runtime (`swift_beginAccess`, about 80 instructions of the writer thread's ~3,000 per
/// event), and the writer accessed the open block once per event and the change ring once
/// per change. The writer is used by one thread at a time, so no access overlaps.
final class WriterHotState {
    /// The open block (`SessionWriter.block`).
    let block: UnsafeMutablePointer<EventBlockEncoder>
    /// The ring of recent changes' seqs (`SessionWriter.changeSeqs`), `count` slots.
    let changeSeqs: UnsafeMutablePointer<(number: UInt64, seq: Int64)>
    /// Slots in `changeSeqs`.
    let count: Int

    /// An empty block and a ring of `count` empty slots.
    init(changeSlots count: Int) {
        self.count = count
        block = .allocate(capacity: 1)
        block.initialize(to: EventBlockEncoder())
        changeSeqs = .allocate(capacity: count)
        changeSeqs.initialize(repeating: (0, 0), count: count)
    }

    deinit {
        block.deinitialize(count: 1)
        block.deallocate()
        changeSeqs.deinitialize(count: count)
        changeSeqs.deallocate()
    }
}
