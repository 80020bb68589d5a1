import ObserverCore

/// A podcast app's downloads screen shows a row per episode download and marks it done
/// when that download's `DownloadDidFinish` notification arrives.
///
/// Buggy (the "addObserver(forName:object:) again on retry" report): when a failed
/// download is retried, the screen observes that task's notification again without
/// cancelling the first observation, so the row is marked done twice. Correct: the screen
/// observes each task once, in a loop — one owner, one call site, one notification name,
/// a different sender for each — and keeps the observation on retry.
enum DownloadListApp {
    static let app = FieldApp(
        name: "download-list",
        summary: "a podcast app's downloads screen marks each episode's row done when its download finishes",
        bug: "retrying a download observes its DownloadDidFinish again without cancelling the first observation",
        fix: "one observation per task (same call site, a different sender each), kept across retries",
        expectedCodes: ["OJ002"],
        story: story
    )

    static let didFinish = "DownloadDidFinish"

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let tasks = ["ep-101", "ep-102", "ep-103"].map { DownloadTask(episode: $0, registry: registry) }
        var screen: DownloadsScreen? = DownloadsScreen(registry: registry)
        script.ui { screen?.viewDidLoad(tasks: tasks) }
        script.ui { tasks[0].finish() }
        script.ui { screen?.retry(tasks[1], observeAgain: variant == .buggy) }  // ep-102 had failed
        script.ui { tasks[1].finish() }
        script.ui { tasks[2].finish() }
        script.ui { screen = nil }
    }

    final class DownloadTask {
        let registry: ObserverRegistry
        let episode: String
        init(episode: String, registry: ObserverRegistry) {
            self.episode = episode
            self.registry = registry
        }
        func finish() { registry.post(notification: DownloadListApp.didFinish, sender: self, payload: episode) }
    }

    final class DownloadsScreen {
        let registry: ObserverRegistry
        private var observations: [ObservationToken] = []
        private(set) var finished: [String] = []

        init(registry: ObserverRegistry) { self.registry = registry }

        func viewDidLoad(tasks: [DownloadTask]) {
            for task in tasks { observe(task) }
        }

        func retry(_ task: DownloadTask, observeAgain: Bool) {
            if observeAgain { observe(task) }
        }

        private func observe(_ task: DownloadTask) {
            observations.append(registry.observe(notification: DownloadListApp.didFinish, sender: task, owner: self) { screen, note in  // [site:did-finish]
                screen.finished.append(note.payload as? String ?? "")
            })
        }
    }
}
