import ObserverCore

/// A store search screen that runs a search whenever the query changes.
///
/// Buggy (the Combine "my sink never fires" report: `_ = publisher.sink { … }` without
/// storing the cancellable): the screen discards the token, so the registration goes at
/// once and no query ever reaches it. Correct: the screen keeps the token.
enum SearchTokenApp {
    static let app = FieldApp(
        name: "search-token-discarded",
        summary: "a store search screen runs a search whenever the query text changes",
        bug: "the screen discards the observation's token (`_ = …observe`), so it is removed at once",
        fix: "the screen keeps the token for as long as it is shown",
        expectedCodes: ["OJ012"],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let searchField = SearchField(registry: registry)
        var screen: SearchScreen? = SearchScreen()
        script.ui { screen?.viewDidLoad(searchField: searchField, keepToken: variant == .correct) }
        script.ui { searchField.type("sh") }
        script.ui { searchField.type("shoes") }
        script.ui { searchField.type("shoes red") }
        script.ui { screen = nil }
    }

    final class SearchField {
        let registry: ObserverRegistry
        lazy var text = ObservableValue("", subject: self, key: "text", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }
        func type(_ query: String) { text.set(query) }
    }

    final class SearchScreen {
        private var queryObservation: ObservationToken?
        private(set) var searches: [String] = []

        func viewDidLoad(searchField: SearchField, keepToken: Bool) {
            if keepToken {
                queryObservation = searchField.text.observe(owner: self, options: [.new]) { screen, change in  // [site:query-kept]
                    screen.searches.append(change.new ?? "")
                }
            } else {
                _ = searchField.text.observe(owner: self, options: [.new]) { screen, change in  // [site:query]
                    screen.searches.append(change.new ?? "")
                }
            }
        }
    }
}
