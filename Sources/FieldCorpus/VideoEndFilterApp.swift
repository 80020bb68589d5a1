import Foundation
import ObserverCore

/// A video app shows a "watch again" button when playback reaches the end.
///
/// Buggy (the AVPlayerItemDidPlayToEndTime classic): the screen observes the end
/// notification with `object: player`, but the player's item posts it, so the observer
/// never runs. Correct: `object: player.currentItem`. In both twins an "up next" preview
/// observes the next item's end with its own filter; that item does not end in the session.
enum VideoEndFilterApp {
    static let app = FieldApp(
        name: "video-end-sender-filter",
        summary: "a video screen shows 'watch again' when its item plays to the end",
        bug: "the end notification is observed with object: player; the item posts it",
        fix: "the end notification is observed with object: the player's current item",
        expectedCodes: ["OJ018"],
        story: story
    )

    static let didPlayToEnd = Notification.Name("ItemDidPlayToEndTime")

    final class Player: @unchecked Sendable {
        var currentItem: PlayerItem?
    }

    final class PlayerItem: @unchecked Sendable {
        let title: String
        init(title: String) { self.title = title }
    }

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let center = RecordingNotificationCenter(registry: registry)  // was: NotificationCenter.default
        let player = Player()
        let items = [PlayerItem(title: "Episode 1"), PlayerItem(title: "Episode 2")]
        let screen = PlaybackScreen(center: center)
        let upNext = PlaybackScreen(center: center)
        script.ui {
            player.currentItem = items[0]
            screen.watch(player: player, variant: variant)
            upNext.watch(item: items[1])
        }
        script.ui { center.post(name: didPlayToEnd, object: items[0]) }
        script.ui { center.post(name: didPlayToEnd, object: items[0]) }
        script.ui {
            screen.close()
            upNext.close()
        }
    }

    final class PlaybackScreen: @unchecked Sendable {
        private let center: RecordingNotificationCenter
        private var tokens: [any NSObjectProtocol] = []
        private(set) var showsWatchAgain = 0

        init(center: RecordingNotificationCenter) { self.center = center }

        func watch(player: Player, variant: FieldVariant) {
            let sender: AnyObject? = variant == .buggy ? player : player.currentItem
            tokens.append(center.addObserver(forName: VideoEndFilterApp.didPlayToEnd, object: sender, queue: nil, owner: self) { [weak self] _ in  // [site:video-end]
                self?.showsWatchAgain += 1
            })
        }

        /// Follows the end of a given item (the up-next preview).
        func watch(item: PlayerItem) {
            tokens.append(center.addObserver(forName: VideoEndFilterApp.didPlayToEnd, object: item, queue: nil, owner: self) { [weak self] _ in
                self?.showsWatchAgain += 1
            })
        }

        func close() {
            for token in tokens { center.removeObserver(token) }
            tokens = []
        }
    }
}
