import ObserverCore

/// A podcast app's now-playing screen shows a spinner until the current episode is ready.
///
/// Buggy (the AVPlayer report: "I observe currentItem.status, but after the next episode
/// starts my observer never fires"): the screen observes the status of the item playing
/// when it loaded; the player replaces its item for the next episode, the old item is
/// deallocated, and the screen never observes the new one: the spinner spins forever.
/// Correct: the screen also follows the player's item changes and observes each new item.
enum PodcastPlayerItemApp {
    static let app = FieldApp(
        name: "podcast-player-item",
        summary: "a podcast player's now-playing screen follows the current episode's loading status",
        bug: "the screen observes the first item's status only; the player replaces the item and the screen never hears from the new one",
        fix: "the screen follows the player's item changes and observes every new item",
        expectedCodes: ["OJ013"],
        story: story
    )

    static let currentItemDidChange = "PlayerCurrentItemDidChange"

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let player = Player(registry: registry)
        var screen: NowPlayingScreen? = NowPlayingScreen(variant: variant)
        script.ui { player.play(episode: "Episode 41") }
        script.ui { screen?.viewDidLoad(player: player) }
        script.ui { player.currentItem?.status.set(.readyToPlay) }
        script.ui { player.play(episode: "Episode 42") }  // the next episode: a new item
        script.ui { player.currentItem?.status.set(.readyToPlay) }
        script.ui { player.currentItem?.status.set(.failed) }
        script.ui { screen = nil }
    }

    enum ItemStatus: String, Sendable, Equatable {
        case unknown, readyToPlay, failed
    }

    final class PlayerItem {
        let registry: ObserverRegistry
        let episode: String
        lazy var status = ObservableValue(ItemStatus.unknown, subject: self, key: "status", registry: registry)
        init(episode: String, registry: ObserverRegistry) {
            self.episode = episode
            self.registry = registry
        }
    }

    final class Player {
        let registry: ObserverRegistry
        private(set) var currentItem: PlayerItem?
        init(registry: ObserverRegistry) { self.registry = registry }

        /// Replaces the current item; the old one is released.
        func play(episode: String) {
            currentItem = PlayerItem(episode: episode, registry: registry)
            registry.post(notification: PodcastPlayerItemApp.currentItemDidChange, sender: self, payload: episode)
        }
    }

    final class NowPlayingScreen {
        private let variant: FieldVariant
        private var statusObservation: ObservationToken?
        private var itemObservation: ObservationToken?
        private weak var player: Player?
        private(set) var showsSpinner = true

        init(variant: FieldVariant) { self.variant = variant }

        func viewDidLoad(player: Player) {
            self.player = player
            observeStatus(of: player.currentItem)
            guard variant == .correct else { return }
            itemObservation = player.registry.observe(
                notification: PodcastPlayerItemApp.currentItemDidChange, sender: player, owner: self
            ) { screen, _ in
                screen.observeStatus(of: screen.player?.currentItem)
            }
        }

        func observeStatus(of item: PlayerItem?) {
            statusObservation?.cancel()  // stop following the previous item first
            statusObservation = item?.status.observe(owner: self, options: [.new]) { screen, change in  // [site:status]
                screen.showsSpinner = change.new == .unknown
            }
        }
    }
}
