import Foundation
import ObserverCore

/// A notes app's status bar shows "Synced" when the sync engine posts `SyncFinished`; the
/// engine finishes on its own background thread.
///
/// Buggy (the "UI updated from a background thread" report, NotificationCenter flavour): the
/// status bar's block updates the label, says it expects the main thread, and is added with
/// `queue: nil`, so it runs on the engine's thread. Correct: it is added with
/// `queue: .main`.
enum SyncStatusApp {
    static let app = FieldApp(
        name: "sync-status-notification",
        summary: "a notes app's status bar shows the sync state posted by a background sync engine",
        bug: "the label's block is added with queue: nil and runs on the engine's thread",
        fix: "the block is added with queue: .main",
        expectedCodes: ["OJ008"],
        mainLoops: [.runLoop, .dispatchMain],
        story: story
    )

    static let syncFinished = Notification.Name("SyncFinished")

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let center = RecordingNotificationCenter(registry: registry)  // was: NotificationCenter.default
        let bar = StatusBar()
        script.ui { bar.start(center: center, variant: variant) }
        for notes in [3, 0] {
            script.background { center.post(name: SyncStatusApp.syncFinished, object: nil, userInfo: ["notes": notes]) }
        }
        script.ui { bar.stop(center: center) }
    }

    final class StatusBar: @unchecked Sendable {
        private var token: (any NSObjectProtocol)?
        private let label = Protected()

        func start(center: RecordingNotificationCenter, variant: FieldVariant) {
            let queue: OperationQueue? = variant == .buggy ? nil : .main
            token = center.addObserver(forName: SyncStatusApp.syncFinished, object: nil, queue: queue, expectsMainThread: true) { [label] _ in  // [site:sync-label]
                label.set("Synced")
            }
        }

        func stop(center: RecordingNotificationCenter) {
            if let token { center.removeObserver(token) }
            token = nil
        }
    }

    /// The label's text, safe to set from the wrong thread in this simulation.
    final class Protected: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        func set(_ value: String) { lock.withLock { text = value } }
    }
}
