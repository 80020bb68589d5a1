import Foundation

/// The steps of one app run, played one after the other on the main queue, the way a
/// user's taps and the system's callbacks reach a real app: each step is one turn of the
/// main loop, and work the step queued on the main queue (a `queue: .main` delivery) runs
/// before the next step.
///
/// A background step runs on a thread of its own (a GPS receiver, a socket, a timer)
/// while the main queue stays free; the next step is queued once it has finished, behind
/// any main-queue deliveries it caused.
///
/// `@unchecked Sendable`: the steps are the app's own non-`Sendable` closures over its
/// screens and models. They are only run on the main queue, strictly one after another,
/// each queued by the end of the previous one, so no two ever run at once.
package final class AppScript: @unchecked Sendable {
    private enum Step {
        case ui(() -> Void)
        case background(@Sendable () -> Void)
    }

    private var steps: [Step] = []
    private var next = 0
    private var completion: (@Sendable () -> Void)?

    package init() {}

    /// Adds a step that runs on the main queue (a tap, a screen appearing).
    package func ui(_ work: @escaping () -> Void) {
        steps.append(.ui(work))
    }

    /// Adds a step that runs on a thread of its own (a sensor, a socket, a timer).
    package func background(_ work: @escaping @Sendable () -> Void) {
        steps.append(.background(work))
    }

    /// Plays the steps on the main queue, then releases them (and with them every object
    /// the story kept), then calls `completion` on the main queue. Returns at once: the
    /// process's main loop must be running (or be started right after) to play them.
    package func start(completion: @escaping @Sendable () -> Void) {
        self.completion = completion
        DispatchQueue.main.async { self.advance() }
    }

    private func advance() {
        guard next < steps.count else {
            // Everything the story captured goes now, while the session still records:
            // the owners' deallocations and their tokens' releases belong to the run.
            steps = []
            let completion = self.completion
            self.completion = nil
            completion?()
            return
        }
        let step = steps[next]
        next += 1
        switch step {
        case .ui(let work):
            work()
            DispatchQueue.main.async { self.advance() }
        case .background(let work):
            let thread = Thread {
                work()
                DispatchQueue.main.async { self.advance() }
            }
            thread.start()
        }
    }
}
