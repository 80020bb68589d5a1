extension Rule {
    /// OJ006 delivery-after-owner-gone: see `DeliveryAfterOwnerGoneChecker.rule`.
    package static var deliveryAfterOwnerGone: Rule { DeliveryAfterOwnerGoneChecker.rule }
}

/// OJ006: a callback ran for an owner already seen deallocated.
struct DeliveryAfterOwnerGoneChecker: RuleChecker {
    /// OJ006: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ006", name: "delivery-after-owner-gone", severities: [.error],
        summary: "A callback ran for an owner that had already been deallocated.",
        details: """
            A callback ran after its owner had been seen deallocated, or after its registration
            was removed because the owner was deallocated. The callback is working on an object
            that no longer exists.
            """,
        fix: "Let the registry hold the owner weakly (pass it as owner, do not capture it strongly in the callback) and remove registrations when the owner goes."
    )

    struct Group {
        var registrationID: Int64
        var ownerID: Int64
        var channelID: Int64?
        var firstSeq: Int64
        var deallocSeq: Int64
        var count = 1
    }

    /// One per registration called after its owner went, so mostly written out.
    private var groups = ScratchTable<Group>(orderedBy: \.firstSeq)

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        guard event.kind == .delivered, let id = event.registrationID else { return }
        // Most sessions have no group at all: then no delivery pays for a lookup.
        if groups.count > 0, var group = groups[id] {
            group.count += 1
            groups[id] = group
            return
        }
        var owner = event.ownerID
        if owner == nil { owner = try context.registration(id)?.ownerID }
        guard let owner, let deallocSeq = context.catalog.objects[owner]?.deallocSeq, deallocSeq < event.seq else { return }
        groups[id] = Group(registrationID: id, ownerID: owner, channelID: event.channelID, firstSeq: event.seq, deallocSeq: deallocSeq)
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        try groups.drain { _, group throws(AnalysisError) in
            let (owner, channel, site) = try context.callback(group.registrationID, owner: group.ownerID, channel: group.channelID)
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(owner)'s callback on \(channel) (\(site)) ran \(times(group.count)) after \(owner) was deallocated at seq \(group.deallocSeq) (first at seq \(group.firstSeq)).",
                evidence: [
                    "seq \(group.deallocSeq): \(owner) was seen deallocated",
                    "seq \(group.firstSeq): registration \(group.registrationID) (\(site)) was still called",
                ],
                seqs: [group.deallocSeq, group.firstSeq], callSites: [site], owners: [owner], channel: channel,
                count: group.count
            ))
        }
    }
}
