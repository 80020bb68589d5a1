import ObserverCore

/// A second-hand marketplace's search filter has a minimum and a maximum price slider; the
/// results list observes both and re-queries when either moves.
///
/// Buggy (the stringly-typed key report again, with a near twin key): the list observes
/// `maxPirce`, a typo, so moving the maximum never re-queries. Correct: it observes
/// `minPrice` and `maxPrice`; in this session the user only moves the maximum, so
/// `minPrice` is observed but never posted, one key "two edits away" from the posted
/// `maxPrice`: correct code that must not read as a typo.
enum PriceFilterApp {
    static let app = FieldApp(
        name: "price-filter",
        summary: "a marketplace's results list re-queries when the min or max price slider moves",
        bug: "the list observes the misspelled key maxPirce",
        fix: "the list observes minPrice and maxPrice (only the maximum moves in this session)",
        expectedCodes: ["OJ005"],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let filter = PriceFilter(registry: registry)
        var results: ResultsList? = ResultsList()
        script.ui { results?.viewDidLoad(filter: filter, maxKey: variant == .buggy ? "maxPirce" : "maxPrice") }
        script.ui { filter.slide("maxPrice", to: 120) }
        script.ui { filter.slide("maxPrice", to: 80) }
        script.ui { results = nil }
    }

    /// Slider values looked up by key, as a filter form bound by key path would.
    final class PriceFilter {
        let registry: ObserverRegistry
        private var values: [String: ObservableValue<Int>] = [:]
        init(registry: ObserverRegistry) { self.registry = registry }

        func value(_ key: String) -> ObservableValue<Int> {
            if let value = values[key] { return value }
            let value = ObservableValue(0, subject: self, key: key, registry: registry)
            values[key] = value
            return value
        }

        func slide(_ key: String, to price: Int) { value(key).set(price) }
    }

    final class ResultsList {
        private var tokens: [ObservationToken] = []
        private(set) var queries = 0

        func viewDidLoad(filter: PriceFilter, maxKey: String) {
            tokens.append(filter.value("minPrice").observe(owner: self, options: [.new]) { list, _ in  // [site:min-price]
                list.queries += 1
            })
            tokens.append(filter.value(maxKey).observe(owner: self, options: [.new]) { list, _ in  // [site:max-price]
                list.queries += 1
            })
        }
    }
}
