import Foundation
import ObserverCore

/// A mail app's inbox screen reloads when the `InboxChanged` notification arrives; the user
/// opens and leaves the inbox several times.
///
/// Buggy (the most common NotificationCenter report): the screen adds its block observer in
/// `viewWillAppear`, throws the token away and names no owner, so every visit adds one more
/// block and each notification reloads the inbox once per visit so far. Correct: the screen
/// keeps the token and removes it in `viewWillDisappear`.
enum InboxObserverApp {
    static let app = FieldApp(
        name: "inbox-notification-observer",
        summary: "a mail app's inbox reloads on the InboxChanged notification, visited several times",
        bug: "the block observer is added on every appearance, its token discarded, no owner",
        fix: "the token is kept and removed in viewWillDisappear",
        expectedCodes: ["OJ002"],
        story: story
    )

    static let inboxChanged = Notification.Name("InboxChanged")

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let center = RecordingNotificationCenter(registry: registry)  // was: NotificationCenter.default
        let screen = InboxScreen(center: center, variant: variant)
        for _ in 0..<3 {
            script.ui { screen.viewWillAppear() }
            script.ui { center.post(name: inboxChanged, object: nil, userInfo: ["unread": 3]) }
            script.ui { screen.viewWillDisappear() }
        }
        script.ui { center.post(name: inboxChanged, object: nil) }
    }

    final class InboxScreen: @unchecked Sendable {
        private let center: RecordingNotificationCenter
        private let variant: FieldVariant
        private var token: (any NSObjectProtocol)?
        private(set) var reloads = 0

        init(center: RecordingNotificationCenter, variant: FieldVariant) {
            self.center = center
            self.variant = variant
        }

        func viewWillAppear() {
            let token = center.addObserver(forName: InboxObserverApp.inboxChanged, object: nil, queue: nil) { [weak self] _ in  // [site:inbox-add]
                self?.reloads += 1
            }
            if variant == .correct { self.token = token }
        }

        func viewWillDisappear() {
            if let token { center.removeObserver(token) }
            token = nil
        }
    }
}
