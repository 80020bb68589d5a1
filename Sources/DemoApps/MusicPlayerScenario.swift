import ObserverCore

/// Seed 004: a shared music player, three places that want its playing state.
///
/// Buggy: the player exposes one callback property, `isPlayingChanged`, and each screen
/// assigns it from its own method: every assignment replaces the previous one, so only
/// the song list (the last to assign) is ever told. Fixed: the player exposes an
/// `ObservableValue`; each screen observes it as owner and keeps its token, so all of them
/// are told, and a closed screen's registration goes with it.
enum MusicPlayerScenario {
    static let scenario = DemoApp(
        name: "music-player",
        summary: "a shared player's playing state wanted by a mini-player window, a now-playing screen and a song list",
        sourceFile: #fileID,
        buggy: "each screen assigns the player's single isPlayingChanged callback: only the last one fires",
        fixed: "each screen observes the player's isPlaying as owner and keeps its token",
        story: { variant, registry, _ in story(variant, registry) }
    )

    /// The story: the app shows its three places, the user plays, pauses and plays, closes
    /// the song list, pauses again; then the app quits.
    static func story(_ variant: ScenarioVariant, _ registry: ObserverRegistry) {
        // One player for the whole app (the seed's singleton); one per run, so each run
        // records into its own registry.
        let screens = Screens()
        switch variant {
        case .buggy:
            let player = Legacy.Player(registry: registry)
            screens.miniPlayer?.attach(to: player)
            screens.nowPlaying?.viewDidLoad(player: player)
            screens.songList?.viewDidLoad(player: player)
            use(player, screens)
        case .fixed:
            let player = Player(registry: registry)
            screens.miniPlayer?.attach(to: player)
            screens.nowPlaying?.viewDidLoad(player: player)
            screens.songList?.viewDidLoad(player: player)
            use(player, screens)
        }
    }

    /// The app's open screens; closing one releases it.
    final class Screens {
        var miniPlayer: MiniPlayerWindow? = MiniPlayerWindow()
        var nowPlaying: NowPlayingScreen? = NowPlayingScreen()
        var songList: SongListScreen? = SongListScreen()
    }

    /// What the user does, the same with either version of the player.
    static func use(_ player: some PlaybackControls, _ screens: Screens) {
        player.play()
        player.pause()
        player.play()
        screens.songList = nil  // the user closes the song list: it is released
        player.pause()
        // The app quits.
        screens.nowPlaying = nil
        screens.miniPlayer = nil
    }

    /// What the story does to either version of the player.
    protocol PlaybackControls {
        func play()
        func pause()
    }

    /// Version 1 of the app, as in the seed.
    enum Legacy {
        /// The player reports through one callback property, like the seed's
        /// `isPlayingChanged` block: whoever assigns it last is the only one told.
        final class Player: PlaybackControls {
            let registry: ObserverRegistry
            lazy var isPlayingChanged = CallbackProperty<Bool>(subject: self, key: "isPlayingChanged", registry: registry)
            private(set) var isPlaying = false

            init(registry: ObserverRegistry) {
                self.registry = registry
            }

            func play() { setPlaying(true) }
            func pause() { setPlaying(false) }

            private func setPlaying(_ playing: Bool) {
                isPlaying = playing
                isPlayingChanged.call(playing)
            }
        }
    }

    /// Version 2 of the app: the player's playing state is an observable value that any
    /// number of owners observe.
    final class Player: PlaybackControls {
        let registry: ObserverRegistry
        lazy var isPlaying = ObservableValue(false, subject: self, key: "isPlaying", registry: registry)

        init(registry: ObserverRegistry) {
            self.registry = registry
        }

        func play() { isPlaying.set(true) }
        func pause() { isPlaying.set(false) }
    }

    /// The floating mini-player shown above every screen.
    final class MiniPlayerWindow {
        private(set) var showsPauseButton = false
        private var tokens: [ObservationToken] = []

        func attach(to player: Legacy.Player) {
            player.isPlayingChanged.assign(owner: self) { window, playing in
                window.showsPauseButton = playing
            }
        }

        func attach(to player: Player) {
            tokens.append(player.isPlaying.observe(owner: self, options: [.new]) { window, change in
                window.showsPauseButton = change.new ?? false
            })
        }
    }

    /// The full-screen now-playing screen.
    final class NowPlayingScreen {
        private(set) var artworkSpins = false
        private var tokens: [ObservationToken] = []

        func viewDidLoad(player: Legacy.Player) {
            player.isPlayingChanged.assign(owner: self) { screen, playing in
                screen.artworkSpins = playing
            }
        }

        func viewDidLoad(player: Player) {
            tokens.append(player.isPlaying.observe(owner: self, options: [.new]) { screen, change in
                screen.artworkSpins = change.new ?? false
            })
        }
    }

    /// The song list, which marks the playing song.
    final class SongListScreen {
        private(set) var marksPlayingSong = false
        private var tokens: [ObservationToken] = []

        func viewDidLoad(player: Legacy.Player) {
            player.isPlayingChanged.assign(owner: self) { screen, playing in
                screen.marksPlayingSong = playing
            }
        }

        func viewDidLoad(player: Player) {
            tokens.append(player.isPlaying.observe(owner: self, options: [.new]) { screen, change in
                screen.marksPlayingSong = change.new ?? false
            })
        }
    }
}
