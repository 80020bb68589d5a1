import Dispatch
import Foundation
import Synchronization

/// Work split by journal: each item is done on a worker (`parallelism` at once, one per
/// core by default) and handed to the caller on the calling thread in item order, as soon
/// as it and every item before it are done. At most `2 × parallelism` items are started
/// and not yet handed over, so a slow first item cannot make the rest pile up: what is
/// open and in memory follows the items in flight, never the number of items.
package enum OrderedWork {
    /// Runs `work` for every index of `0..<count` in parallel and calls `body` with each
    /// result in index order, on the calling thread.
    package static func forEach<Result: Sendable>(
        _ count: Int, parallelism: Int = ProcessInfo.processInfo.activeProcessorCount,
        work: @escaping @Sendable (Int) -> Result, _ body: (Int, Result) -> Void
    ) {
        guard count > 0 else { return }
        let limit = max(1, parallelism)
        let results = Mutex<[Int: Result]>([:])
        let ready = (0..<count).map { _ in DispatchSemaphore(value: 0) }
        // Slots: an item starts only when fewer than 2 × limit results are started and
        // not yet consumed.
        let slots = DispatchSemaphore(value: 2 * limit)
        let workers = DispatchSemaphore(value: limit)
        let queue = DispatchQueue(label: "obsreplay.fleet", attributes: .concurrent)
        DispatchQueue.global().async {
            for index in 0..<count {
                slots.wait()
                workers.wait()
                queue.async {
                    let result = work(index)
                    results.withLock { $0[index] = result }
                    workers.signal()
                    ready[index].signal()
                }
            }
        }
        for index in 0..<count {
            ready[index].wait()
            let result = results.withLock { $0.removeValue(forKey: index)! }
            body(index, result)
            slots.signal()
        }
    }
}
