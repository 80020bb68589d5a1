/// One session's checkers, one per rule of the catalog, each called directly.
///
/// `Diagnoser` hands every event to every checker: called through an array of
/// existentials, each rule cost a retain, a release and a witness-table call per event,
/// and rules that only look at some kinds paid them for all of them. Here each call is
/// direct, and a checker that does not observe events or completed changes is not
/// called for them.
struct RuleCheckers {
    var lastCallbackWins = LastCallbackWinsChecker()
    var duplicateRegistration = DuplicateRegistrationChecker()
    var removeUnregistered = RemoveUnregisteredChecker()
    var leakedRegistration = LeakedRegistrationChecker()
    var neverPostedKey = NeverPostedKeyChecker()
    var deliveryAfterOwnerGone = DeliveryAfterOwnerGoneChecker()
    var redundantChange = RedundantChangeChecker()
    var offMainDelivery = OffMainDeliveryChecker()
    var feedbackLoop = FeedbackLoopChecker()
    var slowCallback = SlowCallbackChecker()
    var uncleanSession = UncleanSessionChecker()
    var silentChange = SilentChangeChecker()
    var subjectReplaced = SubjectReplacedChecker()
    var firstChangeOnly = FirstChangeOnlyChecker()
    var trackingReadsNothing = TrackingReadsNothingChecker()
    var trackingRearmedOffWriter = TrackingRearmedOffWriterChecker()
    var trackingRearmedBeforeWrite = TrackingRearmedBeforeWriteChecker()
    var senderFilterNeverMatched = SenderFilterNeverMatchedChecker()

    /// Every checker, in the catalog's order (`RuleCatalog.checkers`; a test checks).
    var all: [any RuleChecker] {
        [
            lastCallbackWins, duplicateRegistration, removeUnregistered, leakedRegistration, neverPostedKey,
            deliveryAfterOwnerGone, redundantChange, offMainDelivery, feedbackLoop, slowCallback, uncleanSession,
            silentChange, subjectReplaced, firstChangeOnly, trackingReadsNothing, trackingRearmedOffWriter,
            trackingRearmedBeforeWrite, senderFilterNeverMatched,
        ]
    }

    /// `observe` of every checker that looks at events, in the catalog's order.
    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        try lastCallbackWins.observe(event, context)
        try duplicateRegistration.observe(event, context)
        try removeUnregistered.observe(event, context)
        try leakedRegistration.observe(event, context)
        try neverPostedKey.observe(event, context)
        try deliveryAfterOwnerGone.observe(event, context)
        try offMainDelivery.observe(event, context)
        try feedbackLoop.observe(event, context)
        try slowCallback.observe(event, context)
        try silentChange.observe(event, context)
        try firstChangeOnly.observe(event, context)
        try trackingReadsNothing.observe(event, context)
        try trackingRearmedOffWriter.observe(event, context)
        try trackingRearmedBeforeWrite.observe(event, context)
        try senderFilterNeverMatched.observe(event, context)
    }

    /// `completed` of every checker that looks at completed changes, in the catalog's order.
    mutating func completed(_ change: DispatchTracker.CompletedChange, _ context: DiagnosisContext) {
        redundantChange.completed(change, context)
        silentChange.completed(change, context)
    }
}
