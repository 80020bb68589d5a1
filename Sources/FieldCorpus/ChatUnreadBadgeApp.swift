import ObserverCore

/// A chat app's Chats tab shows the inbox's unread count as a badge.
///
/// Buggy (a classic NotificationCenter/KVO report: "my observer fires twice, then three
/// times"): the tab observes the count in `viewWillAppear`, which runs every time the user
/// comes back to the tab, and keeps every token. Correct: it observes once, in
/// `viewDidLoad`, and keeps that one token.
enum ChatUnreadBadgeApp {
    static let app = FieldApp(
        name: "chat-unread-badge",
        summary: "a chat app's Chats tab badge follows the inbox's unread count",
        bug: "the tab observes unreadCount in viewWillAppear, every time it appears, and never cancels",
        fix: "the tab observes once in viewDidLoad and keeps its token",
        expectedCodes: ["OJ002"],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let inbox = Inbox(registry: registry)
        var tab: ChatsTab? = ChatsTab(variant: variant)
        script.ui { tab?.viewDidLoad(inbox: inbox) }
        script.ui { tab?.viewWillAppear(inbox: inbox) }
        script.ui { inbox.messageArrived() }
        script.ui { tab?.viewWillAppear(inbox: inbox) }  // back from Settings
        script.ui { inbox.messageArrived() }
        script.ui { tab?.viewWillAppear(inbox: inbox) }  // back from a conversation
        script.ui { inbox.markAllRead() }
        script.ui { tab = nil }
    }

    final class Inbox {
        let registry: ObserverRegistry
        lazy var unreadCount = ObservableValue(0, subject: self, key: "unreadCount", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }
        func messageArrived() { unreadCount.set(unreadCount.value + 1) }
        func markAllRead() { unreadCount.set(0) }
    }

    final class ChatsTab {
        private let variant: FieldVariant
        private var tokens: [ObservationToken] = []
        private(set) var badge = ""
        init(variant: FieldVariant) { self.variant = variant }

        func viewDidLoad(inbox: Inbox) {
            guard variant == .correct else { return }
            tokens.append(inbox.unreadCount.observe(owner: self, options: [.new]) { tab, change in  // [site:badge-load]
                tab.badge = (change.new ?? 0) == 0 ? "" : "\(change.new ?? 0)"
            })
        }

        func viewWillAppear(inbox: Inbox) {
            guard variant == .buggy else { return }
            tokens.append(inbox.unreadCount.observe(owner: self, options: [.new]) { tab, change in  // [site:badge-appear]
                tab.badge = (change.new ?? 0) == 0 ? "" : "\(change.new ?? 0)"
            })
        }
    }
}
