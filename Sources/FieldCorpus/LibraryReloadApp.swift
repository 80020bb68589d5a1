import Foundation
import ObserverCore

/// A music app's library screen reloads its list on the `LibraryChanged` notification.
///
/// Buggy (the "every sync reloads the list twice" report): the observer is added in `init`
/// and, copied during a refactor, again in `viewDidLoad`; the same owner, two lines, both
/// live. Correct: added once, in `viewDidLoad`. Both twins also follow the keyboard with two
/// different observers set up together in `viewDidLoad` (insets and scrolling).
enum LibraryReloadApp {
    static let app = FieldApp(
        name: "library-reload-two-places",
        summary: "a music app's library screen reloads on LibraryChanged",
        bug: "the same observer is added in init and again in viewDidLoad",
        fix: "the observer is added once, in viewDidLoad",
        expectedCodes: ["OJ002"],
        story: story
    )

    static let libraryChanged = Notification.Name("LibraryChanged")
    static let keyboardWillShow = Notification.Name("KeyboardWillShow")

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let center = RecordingNotificationCenter(registry: registry)  // was: NotificationCenter.default
        var screen: LibraryScreen? = nil
        script.ui { screen = LibraryScreen(center: center, variant: variant) }
        script.ui { screen?.viewDidLoad() }
        for _ in 0..<2 {
            script.ui { center.post(name: libraryChanged, object: nil) }
            script.ui { center.post(name: keyboardWillShow, object: nil) }
        }
        script.ui { screen?.close() }
        script.ui { screen = nil }
    }

    final class LibraryScreen: @unchecked Sendable {
        private let center: RecordingNotificationCenter
        private var tokens: [any NSObjectProtocol] = []
        private(set) var reloads = 0
        private(set) var insets = 0
        private(set) var scrolls = 0

        init(center: RecordingNotificationCenter, variant: FieldVariant) {
            self.center = center
            if variant == .buggy {
                tokens.append(center.addObserver(forName: LibraryReloadApp.libraryChanged, object: nil, queue: nil, owner: self) { [weak self] _ in  // [site:library-init]
                    self?.reloads += 1
                })
            }
        }

        func viewDidLoad() {
            tokens.append(center.addObserver(forName: LibraryReloadApp.libraryChanged, object: nil, queue: nil, owner: self) { [weak self] _ in  // [site:library-load]
                self?.reloads += 1
            })
            tokens.append(center.addObserver(forName: LibraryReloadApp.keyboardWillShow, object: nil, queue: nil, owner: self) { [weak self] _ in
                self?.insets += 1
            })
            tokens.append(center.addObserver(forName: LibraryReloadApp.keyboardWillShow, object: nil, queue: nil, owner: self) { [weak self] _ in
                self?.scrolls += 1
            })
        }

        func close() {
            for token in tokens { center.removeObserver(token) }
            tokens = []
        }
    }
}
