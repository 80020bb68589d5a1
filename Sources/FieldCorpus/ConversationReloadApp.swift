import ObserverCore

/// A messenger's conversation screen shows the conversation's title in its header.
///
/// Buggy (the Core Data / Realm report: "after a sync my screen shows stale data"): the
/// store's sync replaces every conversation object with a fresh one; the old one is
/// deallocated, and the screen, still observing it, never hears of the rename on the new
/// object. Correct: the screen follows the store's reload and observes the new object.
enum ConversationReloadApp {
    static let app = FieldApp(
        name: "conversation-reload",
        summary: "a messenger's conversation header follows the conversation's title",
        bug: "a sync replaces the conversation object; the header keeps observing the dead one and shows a stale title",
        fix: "the header follows the store's reload and observes the new conversation object",
        expectedCodes: ["OJ013"],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let store = ConversationStore(registry: registry)
        var header: ConversationHeader? = ConversationHeader(store: store, id: "team", variant: variant)
        script.ui { store.load(["team": "Team", "family": "Family"]) }
        script.ui { header?.bind() }
        script.ui { store.conversations["team"]?.title.set("Team 🚀") }
        script.ui { store.load(["team": "Team 🚀", "family": "Family"]) }  // background sync finished
        script.ui { store.conversations["team"]?.title.set("Launch team") }
        script.ui { header = nil }
    }

    final class Conversation {
        let registry: ObserverRegistry
        let initialTitle: String
        lazy var title = ObservableValue(initialTitle, subject: self, key: "title", registry: registry)
        init(title: String, registry: ObserverRegistry) {
            self.initialTitle = title
            self.registry = registry
        }
    }

    final class ConversationStore {
        let registry: ObserverRegistry
        private(set) var conversations: [String: Conversation] = [:]
        lazy var revision = ObservableValue(0, subject: self, key: "revision", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }

        /// Replaces every conversation object with a fresh one, as a sync does.
        func load(_ titles: [String: String]) {
            conversations = titles.mapValues { Conversation(title: $0, registry: registry) }
            revision.set(revision.value + 1)
        }
    }

    final class ConversationHeader {
        let store: ConversationStore
        let id: String
        private let variant: FieldVariant
        private var titleObservation: ObservationToken?
        private var reloadObservation: ObservationToken?
        private(set) var shownTitle = ""

        init(store: ConversationStore, id: String, variant: FieldVariant) {
            self.store = store
            self.id = id
            self.variant = variant
        }

        func bind() {
            observeTitle()
            guard variant == .correct else { return }
            reloadObservation = store.revision.observe(owner: self, options: [.new]) { header, _ in
                header.observeTitle()
            }
        }

        func observeTitle() {
            guard let conversation = store.conversations[id] else { return }
            shownTitle = conversation.title.value
            titleObservation = conversation.title.observe(owner: self, options: [.new]) { header, change in  // [site:title]
                header.shownTitle = change.new ?? ""
            }
        }
    }
}
