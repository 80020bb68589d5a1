import ObserverCore

/// Seed 002, second half: a stretchy header image over a scroll view.
///
/// The header observes its scroll view's `contentOffset` and re-lays itself out. Its
/// `scrollView` setter removes the observation of the previous scroll view before
/// observing the new one. The scroll view looks its observable properties up by key, as
/// key-value observing does, so a key is "a string you must not misspell".
///
/// Buggy: the header removes its observation both in `removeFromSuperview()` and in
/// `deinit`, so the second removal finds nothing; and the seed's commented-out alternative
/// is left in, observing the misspelled `contenOffset`, which never fires. Fixed: one
/// removal, in `removeFromSuperview()`, and no misspelled key.
enum StretchyHeaderScenario {
    static let scenario = DemoApp(
        name: "stretchy-header",
        summary: "a header image that stretches with its scroll view's contentOffset, moved to a second scroll view, then removed",
        sourceFile: #fileID,
        buggy: "removal both in removeFromSuperview() and in deinit, and an observation of the misspelled contenOffset",
        fixed: "one removal, in removeFromSuperview(), and only the correctly spelled key",
        story: { variant, registry, _ in story(variant, registry) }
    )

    /// The key the header observes (the seed's `kcontentOffset`).
    static let contentOffsetKey = "contentOffset"
    /// The seed's misspelling, from its commented-out alternative.
    static let misspelledContentOffsetKey = "contenOffset"

    /// The story: a header is added to a scroll view, which the user pulls down and lets
    /// go; the header moves to a second scroll view, pulled and let go too; the header is
    /// removed and released.
    static func story(_ variant: ScenarioVariant, _ registry: ObserverRegistry) {
        let first = ScrollView(registry: registry)
        let second = ScrollView(registry: registry)
        first.addStretchyHeader(height: 200, variant: variant)
        first.scroll(to: Point(x: 0, y: -40))
        first.scroll(to: Point(x: 0, y: -80))
        first.scroll(to: Point(x: 0, y: 0))
        first.moveStretchyHeader(to: second)
        second.scroll(to: Point(x: 0, y: -20))
        second.scroll(to: Point(x: 0, y: 0))
        second.removeStretchyHeader()
    }

    /// A scroll offset.
    struct Point: Sendable, Equatable, CustomStringConvertible {
        var x: Double
        var y: Double
        static let zero = Point(x: 0, y: 0)
        var description: String { "(\(x), \(y))" }
    }

    /// A scroll view whose observable properties are looked up by key, as key-value
    /// observing does: observing a key it never sets is allowed, and never fires.
    final class ScrollView {
        let registry: ObserverRegistry
        private var properties: [String: ObservableValue<Point>] = [:]
        private var stretchyHeader: StretchyHeaderView?

        init(registry: ObserverRegistry) {
            self.registry = registry
        }

        /// Observes the property called `key`. The call site is the caller's, so the
        /// journal names the line that chose the key.
        func observe<Owner: AnyObject>(
            _ key: String, owner: Owner,
            file: String = #fileID, line: Int = #line, function: String = #function,
            _ callback: @escaping @Sendable (Owner, ValueChange<Point>) -> Void
        ) -> ObservationToken {
            property(key).observe(owner: owner, options: [.new], file: file, line: line, function: function, callback)
        }

        /// The user scrolls.
        func scroll(to offset: Point) {
            property(StretchyHeaderScenario.contentOffsetKey).set(offset)
        }

        private func property(_ key: String) -> ObservableValue<Point> {
            if let property = properties[key] { return property }
            let property = ObservableValue(Point.zero, subject: self, key: key, registry: registry)
            properties[key] = property
            return property
        }

        /// Adds a stretchy header (the seed's `addScaleableImageWithImage:height:`).
        func addStretchyHeader(height: Double, variant: ScenarioVariant) {
            let header = StretchyHeaderView(height: height, registry: registry, removesAgainInDeinit: variant == .buggy)
            stretchyHeader = header
            header.scrollView = self
            if variant == .buggy {
                // The seed's commented-out alternative, left in: the header as an observer
                // of the misspelled key, which nothing ever sets.
                header.keep(observe(StretchyHeaderScenario.misspelledContentOffsetKey, owner: header) { header, change in
                    header.layout(offset: change.new ?? .zero)
                })
            }
        }

        /// Hands the header to another scroll view.
        func moveStretchyHeader(to other: ScrollView) {
            guard let header = stretchyHeader else { return }
            stretchyHeader = nil
            other.stretchyHeader = header
            header.scrollView = other
        }

        /// Removes the header (the seed's `removeSceableImage`): it leaves the view
        /// hierarchy and, no longer held, is released.
        func removeStretchyHeader() {
            stretchyHeader?.removeFromSuperview()
            stretchyHeader = nil
        }
    }

    /// The stretchy header image (the seed's `ScaleImage`).
    final class StretchyHeaderView {
        let registry: ObserverRegistry
        let height: Double
        private(set) var frame: (y: Double, height: Double)
        private let removesAgainInDeinit: Bool
        private var tokens: [ObservationToken] = []

        /// The scroll view it stretches with (weak, as in the seed). Setting it moves the
        /// observation: first away from the previous scroll view, then onto the new one.
        weak var scrollView: ScrollView? {
            didSet {
                guard oldValue !== scrollView else { return }
                if let oldValue {
                    registry.removeObservers(owner: self, subject: oldValue, key: StretchyHeaderScenario.contentOffsetKey)
                }
                if let scrollView {
                    keep(scrollView.observe(StretchyHeaderScenario.contentOffsetKey, owner: self) { header, change in
                        header.layout(offset: change.new ?? .zero)
                    })
                }
            }
        }

        init(height: Double, registry: ObserverRegistry, removesAgainInDeinit: Bool) {
            self.registry = registry
            self.height = height
            self.frame = (y: 0, height: height)
            self.removesAgainInDeinit = removesAgainInDeinit
        }

        /// Keeps a token for as long as the header lives.
        func keep(_ token: ObservationToken) {
            tokens.append(token)
        }

        /// Pulled down, the header grows upwards; otherwise it keeps its height.
        func layout(offset: Point) {
            frame = offset.y < 0 ? (y: offset.y, height: height - offset.y) : (y: 0, height: height)
        }

        func removeFromSuperview() {
            if let scrollView {
                registry.removeObservers(owner: self, subject: scrollView, key: StretchyHeaderScenario.contentOffsetKey)
            }
        }

        deinit {
            // The seed removes in `dealloc` as well: after `removeFromSuperview()` there is
            // nothing left to remove.
            if removesAgainInDeinit, let scrollView {
                registry.removeObservers(owner: self, subject: scrollView, key: StretchyHeaderScenario.contentOffsetKey)
            }
        }
    }
}
