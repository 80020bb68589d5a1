extension Rule {
    /// OJ013 subject-replaced: see `SubjectReplacedChecker.rule`.
    package static var subjectReplaced: Rule { SubjectReplacedChecker.rule }
}

/// OJ013: an owner whose subject was deallocated while the owner lived on, when a new
/// subject of the same type appeared later with the same key and the owner never
/// registered on it: the owner keeps showing the old subject's last state.
///
/// "Lived on" is what the registry recorded: the registration was removed because its
/// *subject* was deallocated (`subjectDeallocated`), which the registry only decides when
/// the owner is still alive. Runs once at the end over the registrations table, which
/// holds each registration's fate.
struct SubjectReplacedChecker: RuleChecker {
    /// OJ013: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ013", name: "subject-replaced", severities: [.info],
        summary: "An owner outlived the subject it observed, and never registered on the new subject of the same type and key that replaced it.",
        details: """
            An owner registered on a subject (a player, a document), the subject was deallocated
            while the owner lived on (the registry removed the registration with reason
            subjectDeallocated, which it only does for a live owner, when the state the subject
            owns - an ObservableValue, a CallbackProperty - went with it, or at the latest
            when the session ended), and a new subject of the
            same type with the same key appeared after the owner's registration; the owner never
            registered on it. The owner is told nothing more and keeps showing the old subject's
            state. Info: sometimes the owner only cared about the old subject. The finding
            names both subjects and the registration's call site.
            """,
        fix: "Observe the new subject when it replaces the old one (re-register where the reference is swapped), or observe a longer-lived object that forwards the changes."
    )

    /// A channel another subject's registration could have moved to.
    struct Candidate {
        var id: Int64
        var subjectID: Int64
        var firstSeq: Int64
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        let catalog = context.catalog
        // The registrations removed with their subject, by the subject's channel: only
        // those (with a named channel and subject) can be stranded.
        func removedWithSubject(_ row: RegistrationRow) -> (JournalCatalog.Channel, JournalCatalog.Object)? {
            guard row.removal == .subjectDeallocated, let channel = catalog.channels[row.channelID], channel.subjectID != 0,
                  let subject = catalog.objects[channel.subjectID]
            else { return nil }
            return (channel, subject)
        }
        // Passes over the tables, so that what is held follows the stranded registrations
        // that have a successor, not every registration, owner and channel the session
        // had: the keys such registrations observed, the channels with those keys, the
        // registrations with a successor, then the channels of their owners only.
        var keys: Set<String> = []
        try context.reader.forEachRegistration(session: context.session.id) { _, row in
            if let (channel, _) = removedWithSubject(row) { keys.insert(channel.key) }
        }
        guard !keys.isEmpty else { return }
        var channelsWithKey: [String: [Candidate]] = [:]
        try context.reader.forEachChannel(session: context.session.id) { id, channel in
            guard channel.subjectID != 0, keys.contains(channel.key) else { return }
            channelsWithKey[channel.key, default: []].append(Candidate(id: id, subjectID: channel.subjectID, firstSeq: channel.firstSeq))
        }
        /// The successors of `row`'s channel: same key on another subject of the same
        /// type, first seen after the owner registered on the old one.
        func successors(_ row: RegistrationRow, _ channel: JournalCatalog.Channel, _ subject: JournalCatalog.Object) -> [Candidate] {
            (channelsWithKey[channel.key] ?? []).filter { other in
                guard other.subjectID != channel.subjectID, let object = catalog.objects[other.subjectID] else { return false }
                return object.type == subject.type && object.firstSeq > row.registeredSeq
            }
        }
        var stranded: [RegistrationRow] = []
        try context.reader.forEachRegistration(session: context.session.id) { _, row in
            guard let (channel, subject) = removedWithSubject(row), !successors(row, channel, subject).isEmpty else { return }
            stranded.append(row)
        }
        guard !stranded.isEmpty else { return }
        let owners = Set(stranded.map(\.ownerID))
        var channelsOfOwner: [Int64: Set<Int64>] = [:]
        try context.reader.forEachRegistration(session: context.session.id) { _, row in
            if owners.contains(row.ownerID) { channelsOfOwner[row.ownerID, default: []].insert(row.channelID) }
        }
        var reported: Set<[Int64]> = []
        for row in stranded {
            guard let channel = catalog.channels[row.channelID], channel.subjectID != 0,
                  let subject = catalog.objects[channel.subjectID]
            else { continue }
            // The successors: same key on another subject of the same type, first seen
            // after the owner registered on the old one.
            let successors = successors(row, channel, subject).sorted { ($0.firstSeq, $0.id) < ($1.firstSeq, $1.id) }
            guard let successor = successors.first,
                  successors.allSatisfy({ !(channelsOfOwner[row.ownerID]?.contains($0.id) ?? false) }),
                  let newSubject = catalog.objects[successor.subjectID],
                  !catalog.isDeallocated(row.ownerID, at: newSubject.firstSeq),
                  reported.insert([row.ownerID, row.channelID]).inserted
            else { continue }
            let owner = context.owner(row.ownerID)
            let site = context.site(row.callSiteID)
            let old = context.owner(channel.subjectID)
            let new = context.owner(successor.subjectID)
            let newChannel = context.channel(successor.id)
            let deallocSeq = subject.deallocSeq ?? row.removedSeq ?? row.registeredSeq
            emit(Finding(
                rule: Self.rule, sessionID: context.session.id,
                message: "\(owner) observed \(context.channel(row.channelID)) (\(site)), whose subject \(old) was deallocated while \(owner) lived on; \(new), a new \(subject.type) with key \(quoted(channel.key)), appeared at seq \(newSubject.firstSeq) and \(owner) never registered on it.",
                evidence: [
                    "seq \(row.registeredSeq): \(owner) registered on \(context.channel(row.channelID)) at \(site)",
                    "seq \(newSubject.firstSeq): \(new) appeared (\(newChannel)), of the same type \(subject.type)",
                    "seq \(deallocSeq): \(old) was seen deallocated and \(owner)'s registration removed with it, \(owner) still alive",
                    "\(owner) never registered on \(newChannel)",
                ],
                seqs: [row.registeredSeq, newSubject.firstSeq, deallocSeq], callSites: [site], owners: [owner, old, new],
                channel: context.channel(row.channelID)
            ))
        }
    }
}
