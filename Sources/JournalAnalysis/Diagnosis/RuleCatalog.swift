/// The rule catalog: the one list of checkers, in code order.
///
/// A rule's description lives in its checker (`static let rule`); this list orders them.
/// The diagnoser runs one of each (`RuleCheckers`, which calls them directly; a test
/// checks it holds this list, in this order); `Rule.allCases` (the
/// help, `--explain`, configuration keys, SARIF rule metadata, the README's table) is
/// their rules in this order.
enum RuleCatalog {
    /// Computed, not stored: metatypes of a protocol are not `Sendable` global state.
    static var checkers: [any RuleChecker.Type] {
        [
            LastCallbackWinsChecker.self, DuplicateRegistrationChecker.self, RemoveUnregisteredChecker.self,
            LeakedRegistrationChecker.self, NeverPostedKeyChecker.self, DeliveryAfterOwnerGoneChecker.self,
            RedundantChangeChecker.self, OffMainDeliveryChecker.self, FeedbackLoopChecker.self, SlowCallbackChecker.self,
            UncleanSessionChecker.self, SilentChangeChecker.self, SubjectReplacedChecker.self,
            FirstChangeOnlyChecker.self, TrackingReadsNothingChecker.self, TrackingRearmedOffWriterChecker.self,
            TrackingRearmedBeforeWriteChecker.self, SenderFilterNeverMatchedChecker.self,
        ]
    }
}

extension Rule {
    /// Every rule, in code order.
    package static let allCases: [Rule] = RuleCatalog.checkers.map { $0.rule }

    /// Finds a rule by code (`OJ001`, any case) or name (`last-callback-wins`).
    package init?(codeOrName text: String) {
        let wanted = text.lowercased()
        guard let match = Rule.allCases.first(where: { $0.code.lowercased() == wanted || $0.name == wanted }) else {
            return nil
        }
        self = match
    }
}
