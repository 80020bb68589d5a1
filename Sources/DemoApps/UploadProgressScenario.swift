import ObserverCore
import Synchronization

/// Seed 002, first half: a progress bar that follows an upload.
///
/// The screen observes the upload's `fractionCompleted` with old and new values, shows
/// it in a progress bar on the main queue, and cancels its own registration from inside
/// the callback once the upload is complete. Progress is reported on the upload's
/// threads, never the main one.
///
/// Both variants are correct; the diagnosis must stay silent for both (this scenario
/// guards against false positives). The buggy variant is the seed's shape: called on the
/// upload's thread, it sends the UI work to the main queue itself. The fixed variant asks
/// the registry to deliver on the main queue.
enum UploadProgressScenario {
    static let scenario = DemoApp(
        name: "upload-progress",
        summary: "a progress bar that follows an upload's fractionCompleted and stops observing from inside its callback at 1.0",
        sourceFile: #fileID,
        buggy: "as first written: called on the upload's thread, the callback sends UI work to the main queue itself (correct)",
        fixed: "the registration asks to be delivered on the main queue (also correct)",
        story: { variant, registry, ui throws(ScenarioError) in try story(variant, registry, ui) }
    )

    /// The story: the screen starts observing; the upload reports a quarter at a time,
    /// each report from the thread its chunk finished on, and the UI catches up after
    /// each; the screen is released.
    static func story(_ variant: ScenarioVariant, _ registry: ObserverRegistry, _ ui: UIQueue) throws(ScenarioError) {
        let upload = Upload(registry: registry)
        var screen: UploadScreen? = UploadScreen(ui: ui)
        screen?.observeProgress(of: upload, deliveredOnMainQueue: variant == .fixed)
        for fraction in [0.25, 0.5, 0.75, 1.0] {
            onBackgroundThread { [fractionCompleted = upload.fractionCompleted] in
                Upload.chunkFinished(fractionCompleted, fraction)
            }
            try ui.drain(scenario: scenario.name)
        }
        screen = nil
    }

    /// An upload's progress (the seed's `NSProgress`).
    final class Upload {
        let registry: ObserverRegistry
        lazy var fractionCompleted = ObservableValue(0.0, subject: self, key: "fractionCompleted", registry: registry)

        init(registry: ObserverRegistry) {
            self.registry = registry
        }

        /// Called on the thread a chunk finished on.
        static func chunkFinished(_ fractionCompleted: ObservableValue<Double>, _ fraction: Double) {
            fractionCompleted.set(fraction)
        }
    }

    /// The progress bar; UI work sent to it from another thread reaches it through the
    /// UI queue, so it is `Sendable`.
    final class ProgressBar: Sendable {
        private let storage = Mutex(0.0)
        var progress: Double { storage.withLock { $0 } }
        func setProgress(_ progress: Double) { storage.withLock { $0 = progress } }
    }

    /// The screen showing the upload.
    final class UploadScreen {
        let progressBar = ProgressBar()
        private let ui: UIQueue
        private var progressObservation: ObservationToken?

        init(ui: UIQueue) {
            self.ui = ui
        }

        func observeProgress(of upload: Upload, deliveredOnMainQueue: Bool) {
            if deliveredOnMainQueue {
                progressObservation = upload.fractionCompleted.observe(
                    owner: self, options: [.old, .new], queue: ui.queue
                ) { screen, change in
                    let completed = change.new ?? 0
                    screen.progressBar.setProgress(completed)
                    if completed >= 1.0 { screen.progressObservation?.cancel() }
                }
            } else {
                progressObservation = upload.fractionCompleted.observe(owner: self, options: [.old, .new]) { screen, change in
                    let completed = change.new ?? 0
                    let progressBar = screen.progressBar
                    screen.ui.async { progressBar.setProgress(completed) }
                    if completed >= 1.0 { screen.progressObservation?.cancel() }
                }
            }
        }
    }
}
