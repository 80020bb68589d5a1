import ObservationJournal
import ObserverCore
import Testing
import TestSupport

// The README's recording snippet, verbatim (ObsReplayCLITests' ReadmeTests checks that),
// with the README's types, so it keeps compiling and does what the README says.
private final class MusicPlayer {
    let registry: ObserverRegistry
    lazy var isPlaying = ObservableValue(false, subject: self, key: "isPlaying", registry: registry)
    init(registry: ObserverRegistry) { self.registry = registry }
}

private final class MiniPlayerWindow {
    var tokens: [ObservationToken] = []
    var showsPause = false

    func follow(_ player: MusicPlayer) {
        tokens.append(player.isPlaying.observe(owner: self, options: [.new, .onlyWhenChanged]) { window, change in
            window.showsPause = change.new ?? false
        })
    }
}

/// Records one run of the player UI into the journal at `path`.
func recordPlayback(into path: String) throws {
    let journal = try Journal.open(path: path)                    // created with mode 0600
    let recording = try journal.startSession(label: "playback UI test") { error in
        print("recording stopped: \(error)")                       // the app keeps running
    }
    let player = MusicPlayer(registry: recording.registry)        // the same API as above
    let window = MiniPlayerWindow()
    window.follow(player)
    player.isPlaying.value = true
    recording.close()                                             // commits everything, ends cleanly
}

@Test func readmeRecordingExampleRecordsThePlayer() throws {
    let scratch = try ScratchDirectory()
    let path = scratch.path("observers.sqlite")
    try recordPlayback(into: path)
    #expect(try rows(path, "select seq, kind, channel, owner, old_value, new_value from event_log") == [
        "1|registered|MusicPlayer#1.isPlaying|MiniPlayerWindow#2|NULL|NULL",
        "2|changed|MusicPlayer#1.isPlaying|NULL|false|true",
        "3|delivered|MusicPlayer#1.isPlaying|MiniPlayerWindow#2|NULL|NULL",
    ])
}
