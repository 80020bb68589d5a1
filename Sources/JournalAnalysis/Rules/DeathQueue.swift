/// An owner's entry on a channel, due to go when the owner is seen deallocated at `seq`.
struct Death: Sendable, Equatable {
    var seq: Int64
    var channel: Int64
    var owner: Int64
}

/// Entries ordered by the seq at which their owner is seen deallocated, earliest first (a
/// binary min-heap): lets a checker drop per-owner state when the owner goes, so its state
/// follows the owners still alive.
struct DeathQueue: Sendable {
    private var heap: [Death] = []

    var count: Int { heap.count }

    mutating func push(_ death: Death) {
        heap.append(death)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].seq < heap[parent].seq else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry if it is due at or before `seq`.
    mutating func popFirst(atOrBefore seq: Int64) -> Death? {
        guard let first = heap.first, first.seq <= seq else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].seq < heap[smallest].seq { smallest = left }
            if right < heap.count, heap[right].seq < heap[smallest].seq { smallest = right }
            guard smallest != parent else { return first }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
