import ObserverCore

/// Seed 000: a download button that follows the system video player's toolbar.
///
/// The screen hooks the player view's single-tap handler (the seed's aspect hook, modelled
/// as a notification the view posts before it acts, observed with the view as sender).
/// On the first tap the hook finds the toolbar's container and observes its `hidden`,
/// only when it changes, to keep the download button in step. Both registrations are
/// declared for the scope "VideoPlayerScreen visible".
///
/// Buggy: the callback assumes the main thread without asking for it, so the player's
/// auto-hide timer, which fires on its own thread, runs it off the main thread; and the
/// screen disappears without removing its hook and observation, which keep firing for a
/// screen nobody sees. Fixed: the observation asks to be delivered on the main queue, and
/// the screen removes both registrations when it disappears, before its scope ends.
enum VideoToolbarScenario {
    static let scenario = DemoApp(
        name: "video-toolbar",
        summary: "a download button kept in step with the system video player's toolbar through a tap hook and an observation of hidden",
        sourceFile: #fileID,
        buggy: "the hook and observation outlive the screen, and the auto-hide timer delivers off the main thread",
        fixed: "delivery on the main queue, and both registrations removed when the screen disappears",
        story: { variant, registry, ui throws(ScenarioError) in try story(variant, registry, ui) }
    )

    /// The name of the hooked method, which the player view posts before it runs.
    static let singleTapHook = "handleSingleTap"

    /// The story: the screen appears; the user taps twice (the toolbar hides and shows);
    /// a layout pass re-applies the toolbar's state; the auto-hide timer hides it from its
    /// own thread; the screen disappears while the player goes on (picture in picture);
    /// the user taps the player again; the screen is released.
    static func story(_ variant: ScenarioVariant, _ registry: ObserverRegistry, _ ui: UIQueue) throws(ScenarioError) {
        let drain = { () throws(ScenarioError) in try ui.drain(scenario: scenario.name) }
        let playerView = VideoPlayerView(registry: registry)
        var screen: VideoPlayerScreen? = VideoPlayerScreen(playerView: playerView, variant: variant, ui: ui)
        screen?.viewDidAppear()
        playerView.handleSingleTap()
        try drain()
        playerView.handleSingleTap()
        try drain()
        playerView.layoutToolbar()
        try drain()
        onBackgroundThread { [hidden = playerView.toolbar.hidden] in
            VideoPlayerView.autoHideControls(hidden)
        }
        try drain()
        screen?.viewDidDisappear()
        playerView.handleSingleTap()
        try drain()
        screen = nil
    }

    /// The system player's toolbar container (the seed's `AVTouchIgnoringView`).
    final class ToolbarContainer {
        let registry: ObserverRegistry
        lazy var hidden = ObservableValue(false, subject: self, key: "hidden", registry: registry)

        init(registry: ObserverRegistry) {
            self.registry = registry
        }
    }

    /// The system player's view: a tap shows or hides its toolbar.
    final class VideoPlayerView {
        let registry: ObserverRegistry
        let toolbar: ToolbarContainer

        init(registry: ObserverRegistry) {
            self.registry = registry
            toolbar = ToolbarContainer(registry: registry)
        }

        /// The hooked method: the hook runs before it (the seed's `AspectPositionBefore`).
        func handleSingleTap() {
            registry.post(notification: VideoToolbarScenario.singleTapHook, sender: self)
            toolbar.hidden.set(!toolbar.hidden.value)
        }

        /// A layout pass sets the toolbar's state again, unchanged.
        func layoutToolbar() {
            toolbar.hidden.set(toolbar.hidden.value)
        }

        /// The player hides its controls after a while without a touch, from its timer's
        /// own thread.
        static func autoHideControls(_ hidden: ObservableValue<Bool>) {
            hidden.set(true)
        }
    }

    /// The app's own button, which must appear and disappear with the toolbar.
    final class DownloadButton {
        var isHidden = false
    }

    /// The app's screen around the system player.
    final class VideoPlayerScreen {
        let playerView: VideoPlayerView
        let downloadButton = DownloadButton()
        private let variant: ScenarioVariant
        private let ui: UIQueue
        private var visible: ObservationScope?
        private var tapHook: ObservationToken?
        private var toolbarObservation: ObservationToken?

        init(playerView: VideoPlayerView, variant: ScenarioVariant, ui: UIQueue) {
            self.playerView = playerView
            self.variant = variant
            self.ui = ui
        }

        func viewDidAppear() {
            let visible = playerView.registry.beginScope("VideoPlayerScreen visible")
            self.visible = visible
            tapHook = playerView.registry.observe(
                notification: VideoToolbarScenario.singleTapHook, sender: playerView, owner: self,
                expectsMainThread: ui.isMain, scope: visible
            ) { screen, _ in
                screen.playerWasTapped()
            }
        }

        /// As in the seed: on the first tap, find the toolbar's container and follow it.
        func playerWasTapped() {
            guard toolbarObservation == nil, let visible else { return }
            // The button is UI: the fix asks the registry for the main queue instead of
            // only assuming it.
            let queue = variant == .fixed ? ui.queue : nil
            toolbarObservation = playerView.toolbar.hidden.observe(
                owner: self, options: [.old, .new, .onlyWhenChanged], queue: queue,
                expectsMainThread: ui.isMain, scope: visible
            ) { screen, change in
                screen.downloadButton.isHidden = change.new ?? false
            }
        }

        func viewDidDisappear() {
            if variant == .fixed {
                // The seed's `[self.hookAVPlaySingleTap remove]`, and the observation too.
                tapHook?.cancel()
                toolbarObservation?.cancel()
                tapHook = nil
                toolbarObservation = nil
            }
            visible?.end()
            visible = nil
        }
    }
}
