import ObserverCore

/// A brokerage app's watchlist cell shows a stock's last price, streamed from a market-data
/// socket and delivered on the main queue.
///
/// Buggy (the "my cell flickers on every tick" report): the socket sets the price on every
/// tick, most of them unchanged, and the cell observes without `.onlyWhenChanged`, so it
/// redraws for nothing. Correct: the cell observes with `.onlyWhenChanged`. Either way
/// hundreds of tiny callbacks run on the main queue, which under CPU load must not read as
/// slow.
enum StockTickerApp {
    static let app = FieldApp(
        name: "stock-ticker",
        summary: "a brokerage watchlist cell shows a stock's last price streamed on the main queue",
        bug: "the cell redraws on every tick, most of which repeat the last price",
        fix: "the cell observes with .onlyWhenChanged",
        expectedCodes: ["OJ007"],
        mainLoops: [.runLoop, .dispatchMain],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let quote = Quote(symbol: "ACME", registry: registry)
        var cell: WatchlistCell? = WatchlistCell()
        script.ui { cell?.configure(quote: quote, onlyWhenChanged: variant == .correct) }
        script.background { [lastPrice = quote.lastPrice] in
            for tick in 0..<600 { MarketDataSocket.received(lastPrice, cents: 10_000 + tick / 3) }
        }
        script.ui { cell = nil }
    }

    final class Quote {
        let registry: ObserverRegistry
        let symbol: String
        lazy var lastPrice = ObservableValue(0, subject: self, key: "lastPrice", registry: registry)
        init(symbol: String, registry: ObserverRegistry) {
            self.symbol = symbol
            self.registry = registry
        }
    }

    enum MarketDataSocket {
        /// Called on the socket's thread for every trade, repeated prices included.
        static func received(_ lastPrice: ObservableValue<Int>, cents: Int) {
            lastPrice.set(cents)  // [site:tick]
        }
    }

    final class WatchlistCell {
        private var observation: ObservationToken?
        private(set) var redraws = 0

        func configure(quote: Quote, onlyWhenChanged: Bool) {
            let options: ObservationOptions = onlyWhenChanged ? [.new, .onlyWhenChanged] : [.new]
            observation = quote.lastPrice.observe(owner: self, options: options, queue: .main) { cell, _ in
                cell.redraws += 1
            }
        }
    }
}
