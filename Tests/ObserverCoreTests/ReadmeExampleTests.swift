import ObserverCore
import Testing

// The README's "Using the registry" snippet, verbatim, so it keeps compiling.
final class MusicPlayer {
    let registry: ObserverRegistry
    lazy var isPlaying = ObservableValue(false, subject: self, key: "isPlaying", registry: registry)
    init(registry: ObserverRegistry) { self.registry = registry }
}

final class MiniPlayerWindow {
    var tokens: [ObservationToken] = []
    var showsPause = false

    func follow(_ player: MusicPlayer) {
        // The owner is held weakly and handed to the callback; keep the token in the
        // owner, so the registration goes when the owner goes.
        tokens.append(player.isPlaying.observe(owner: self, options: [.new, .onlyWhenChanged]) { window, change in
            window.showsPause = change.new ?? false
        })
    }
}

@Test func readmeExampleFollowsThePlayer() {
    let player = MusicPlayer(registry: ObserverRegistry())
    let window = MiniPlayerWindow()
    window.follow(player)
    player.isPlaying.value = true
    #expect(window.showsPause)
    player.isPlaying.value = false
    #expect(!window.showsPause)
}
