import ObserverCore

/// A team-chat app's message list appends messages as the web socket receives them.
///
/// Buggy (the "UITableView updated from a background thread" report): the list observes
/// the `MessageReceived` notification and assumes the main thread, but the socket posts it
/// from its own thread. Correct: the list asks for delivery on the main queue, as
/// `NotificationCenter.addObserver(forName:object:queue: .main)` does.
enum ChatSocketApp {
    static let app = FieldApp(
        name: "chat-socket",
        summary: "a team-chat message list appends messages posted by the web socket",
        bug: "the list's MessageReceived observer assumes the main thread; the socket posts on its own thread",
        fix: "the observer asks for the main queue",
        expectedCodes: ["OJ008"],
        mainLoops: [.runLoop, .dispatchMain],
        story: story
    )

    static let messageReceived = "MessageReceived"

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let socket = ChatSocket(registry: registry)
        var list: MessageList? = MessageList()
        script.ui { list?.viewDidLoad(registry: registry, variant: variant) }
        for text in ["standup in 5", "on my way", "🎉"] {
            script.background { [socket] in socket.receive(text) }
        }
        script.ui { list = nil }
    }

    /// The socket posts from whichever thread its frames arrive on.
    final class ChatSocket: Sendable {
        let registry: ObserverRegistry
        init(registry: ObserverRegistry) { self.registry = registry }
        func receive(_ text: String) {
            registry.post(notification: ChatSocketApp.messageReceived, sender: self, payload: text)
        }
    }

    final class MessageList {
        private var observation: ObservationToken?
        private(set) var rows: [String] = []

        func viewDidLoad(registry: ObserverRegistry, variant: FieldVariant) {
            if variant == .buggy {
                observation = registry.observe(notification: ChatSocketApp.messageReceived, owner: self, expectsMainThread: true) { list, note in  // [site:messages]
                    list.rows.append(note.payload as? String ?? "")
                }
            } else {
                observation = registry.observe(notification: ChatSocketApp.messageReceived, owner: self, queue: .main) { list, note in  // [site:messages-main]
                    list.rows.append(note.payload as? String ?? "")
                }
            }
        }
    }
}
