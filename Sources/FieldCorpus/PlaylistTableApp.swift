import ObserverCore

/// A music app's playlist table animates row changes: it observes the playlist's tracks
/// with `.prior` (to begin an update before the change) and `.initial` (to fill itself when
/// it appears), KVO style, and stops with one `removeObservers(owner:)`.
///
/// Buggy (the "Cannot remove an observer because it is not registered" crash report): the
/// table removes all its observations in `viewDidDisappear` and again in `deinit`. Correct:
/// it removes them once, in `viewDidDisappear`.
enum PlaylistTableApp {
    static let app = FieldApp(
        name: "playlist-table",
        summary: "a music app's playlist table animates track changes with prior and initial observations",
        bug: "the table removes all its observations in viewDidDisappear and again in deinit",
        fix: "one removeObservers(owner:), in viewDidDisappear",
        expectedCodes: ["OJ003"],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let playlist = Playlist(registry: registry)
        var table: PlaylistTable? = PlaylistTable(registry: registry, variant: variant)
        script.ui { table?.viewWillAppear(playlist: playlist) }
        script.ui { playlist.add("Teardrop") }
        script.ui { playlist.add("Angel") }
        script.ui { playlist.removeFirst() }
        script.ui { table?.viewDidDisappear() }
        script.ui { table = nil }
        script.ui { playlist.add("Unfinished Sympathy") }
    }

    final class Playlist {
        let registry: ObserverRegistry
        lazy var tracks = ObservableValue([String](), subject: self, key: "tracks", registry: registry)
        lazy var duration = ObservableValue(0, subject: self, key: "durationSeconds", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }

        func add(_ title: String) {
            tracks.set(tracks.value + [title])
            duration.set(duration.value + 240)
        }

        func removeFirst() {
            tracks.set(Array(tracks.value.dropFirst()))
            duration.set(max(0, duration.value - 240))
        }
    }

    final class PlaylistTable {
        let registry: ObserverRegistry
        private let variant: FieldVariant
        private var tokens: [ObservationToken] = []
        private(set) var rows: [String] = []
        private(set) var footer = ""
        private var updating = false

        init(registry: ObserverRegistry, variant: FieldVariant) {
            self.registry = registry
            self.variant = variant
        }

        func viewWillAppear(playlist: Playlist) {
            tokens.append(playlist.tracks.observe(owner: self, options: [.initial, .prior, .new]) { table, change in
                if change.isPrior {
                    table.updating = true  // beginUpdates()
                } else {
                    table.rows = change.new ?? []
                    table.updating = false  // endUpdates()
                }
            })
            tokens.append(playlist.duration.observe(owner: self, options: [.initial, .new, .onlyWhenChanged]) { table, change in
                table.footer = "\((change.new ?? 0) / 60) min"
            })
        }

        func viewDidDisappear() {
            registry.removeObservers(owner: self)  // [site:remove-disappear]
        }

        deinit {
            if variant == .buggy {
                registry.removeObservers(owner: self)  // [site:remove-deinit-all]
            }
        }
    }
}
