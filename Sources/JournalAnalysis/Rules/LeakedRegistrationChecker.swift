extension Rule {
    /// OJ004 leaked-registration: see `LeakedRegistrationChecker.rule`.
    package static var leakedRegistration: Rule { LeakedRegistrationChecker.rule }
}

/// OJ004: a registration that outlived its scope (warning) or its session (info).
struct LeakedRegistrationChecker: RuleChecker {
    /// OJ004: the rule this checker decides, described next to its logic.
    static let rule = Rule(
        code: "OJ004", name: "leaked-registration", severities: [.warning, .info],
        summary: "A registration was still live when its session ended, or outlived the scope it was declared for.",
        details: """
            warning: a registration declared for a scope (a screen being visible) was still
            live when that scope ended and was then delivered to, or was never removed: the
            hook outlived its screen.

            The fix names the API used: a for await loop over changes(), notifications(named:) or
            observations has no token (cancel the task that runs it when the scope ends; a
            sequence held elsewhere keeps its registration after the loop is left); a
            NotificationCenter observer is removed with removeObserver(token); a
            withObservationTracking has no token either (stop arming it again).

            info: a registration was still live when its (cleanly ended) session ended while its
            owner was alive. Often intended (an app-wide observer), listed so it can be checked.

            Not reported: a registration removed automatically because its owner was
            deallocated, or one whose owner was deallocated before the session ended; at the
            session's end, a withObservationTracking's live arming (a tracking armed again after
            each change always has one, and it ends by itself at the next change).
            """,
        fix: "Remove the registration when its scope ends (cancel its token there), or tie it to an owner that goes away with the scope."
    )

    /// What a finding says of a registration: an entry is kept per registration that
    /// outlived its scope until the session ends (thousands in a session that leaks
    /// them), so plain integers, not the row with its texts.
    struct Registration {
        var id: Int64
        var channelID: Int64
        var ownerID: Int64
        var callSiteID: Int64
        var scopeID: Int64?
        var registeredSeq: Int64

        init(_ row: RegistrationRow) {
            (id, channelID, ownerID, callSiteID) = (row.id, row.channelID, row.ownerID, row.callSiteID)
            (scopeID, registeredSeq) = (row.scopeID, row.registeredSeq)
        }
    }

    struct Outlived {
        var registration: Registration
        var scopeEndedSeq: Int64
        /// The deliveries after the scope ended: the first one's seq and how many.
        var delivered: (firstSeq: Int64, count: Int)?
        var removedSeq: Int64?
        var deliveries: Int { delivered?.count ?? 0 }

        /// One more delivery after the scope ended, at `seq`.
        mutating func addDelivery(seq: Int64) {
            delivered = (delivered?.firstSeq ?? seq, deliveries + 1)
        }
    }

    private var outlived = IDMap<Outlived>()

    /// The API behind a registration, told by its owner's type: the owner of a `for await`
    /// loop's registration (`changes()`, `notifications(named:)`), a NotificationCenter
    /// token that owns its own observer, or an app's owner.
    enum Shape {
        case loop, notificationToken, tracking, owned

        init(owner: Int64, channel: Int64, _ context: DiagnosisContext) {
            if TrackingSite.isTracking(channel, context) {
                self = .tracking
                return
            }
            switch context.catalog.objects[owner]?.type {
            case "ChangeStream": self = .loop
            case "NotificationToken": self = .notificationToken
            default: self = .owned
            }
        }
    }

    /// How a finding names the registration: `the for await loop's registration`.
    static func what(owner: Int64, channel: Int64, _ context: DiagnosisContext) -> String {
        switch Shape(owner: owner, channel: channel, context) {
        case .loop: return "The for await loop (\(context.owner(owner)))"
        case .tracking: return "\(context.owner(owner))'s tracking"
        case .notificationToken, .owned: return "\(context.owner(owner))'s registration"
        }
    }

    /// The fix for the API used; `nil` for the rule's own (an owner's registration).
    static func fix(owner: Int64, channel: Int64, _ context: DiagnosisContext) -> String? {
        switch Shape(owner: owner, channel: channel, context) {
        case .loop:
            return "End the for await loop when its scope ends: run it in a Task kept by the screen and cancel that task there. Leaving the loop (return or break) ends the registration only when nothing else holds the sequence: drop a sequence kept in a property or captured elsewhere too. The sequence has no token to cancel."
        case .tracking:
            return "Stop arming the tracking again once its scope ends (in onChange, re-arm only while the screen is visible), or give it an owner that goes away with the screen; a withObservationTracking has no token to cancel."
        case .notificationToken:
            return "Keep the token addObserver returned and pass it to removeObserver(_:) when the scope ends (viewWillDisappear, deinit)."
        case .owned:
            return nil
        }
    }

    mutating func observe(_ event: EventRow, _ context: DiagnosisContext) throws(AnalysisError) {
        switch event.kind {
        case .scopeEnded:
            guard let scope = event.scopeID else { return }
            for row in context.live.registrations.rows(inScope: scope) where outlived[row.id] == nil {
                outlived[row.id] = Outlived(registration: Registration(row), scopeEndedSeq: event.seq)
            }
        case .delivered:
            guard let id = event.registrationID, !event.isInitialDelivery else { return }
            outlived.update(id) { $0.addDelivery(seq: event.seq) }
        case .removed, .replaced:
            guard let id = event.kind == .removed ? event.registrationID : event.otherRegistrationID,
                  let entry = outlived[id]
            else { return }
            // Removed after the scope ended but before anything reached it: a teardown
            // done in the other order, harmless.
            if entry.deliveries == 0 { outlived[id] = nil } else { outlived.update(id) { $0.removedSeq = event.seq } }
        default:
            break
        }
    }

    mutating func finish(_ context: DiagnosisContext, _ emit: (Finding) -> Void) throws(AnalysisError) {
        for entry in outlived.allValues.sorted(by: { $0.registration.id < $1.registration.id }) {
            let row = entry.registration
            // Never reached after the scope and its owner is gone: the registry drops it
            // lazily; nothing leaked in effect.
            if entry.deliveries == 0, context.catalog.objects[row.ownerID]?.deallocSeq != nil { continue }
            let owner = context.owner(row.ownerID)
            let channel = context.channel(row.channelID)
            let site = context.site(row.callSiteID)
            let scope = row.scopeID.flatMap { context.catalog.scopes[$0]?.name } ?? "scope \(row.scopeID ?? 0)"
            var evidence = [
                "seq \(row.registeredSeq): \(owner) registered \(channel) at \(site) for scope \(quoted(scope, limit: 60))",
                "seq \(entry.scopeEndedSeq): the scope ended while the registration was live",
            ]
            var seqs = [row.registeredSeq, entry.scopeEndedSeq]
            let tail: String
            if let delivered = entry.delivered {
                evidence.append("seq \(delivered.firstSeq): first of \(plural(delivered.count, "delivery", "deliveries")) after the scope ended")
                seqs.append(delivered.firstSeq)
                tail = "was delivered \(times(delivered.count)) after it"
            } else {
                tail = "was still registered when the session ended"
            }
            if let removed = entry.removedSeq {
                evidence.append("seq \(removed): removed at last")
                seqs.append(removed)
            }
            emit(Finding(
                rule: Self.rule, severity: .warning, sessionID: context.session.id,
                message: "\(Self.what(owner: row.ownerID, channel: row.channelID, context)) on \(channel) (\(site)) outlived scope \(quoted(scope, limit: 60)) (ended at seq \(entry.scopeEndedSeq)) and \(tail).",
                evidence: evidence, seqs: seqs, callSites: [site], owners: [owner], channel: channel,
                count: max(entry.deliveries, 1), fix: Self.fix(owner: row.ownerID, channel: row.channelID, context)
            ))
        }
        // Still registered at the end of a cleanly ended session, owner alive: often
        // intended, so only `info`, grouped by call site and channel.
        guard context.session.cleanEnd else { return }
        struct Key: Hashable { var site: Int64; var channel: Int64 }
        var groups: [Key: [RegistrationRow]] = [:]
        for row in context.live.registrations.values where outlived[row.id] == nil {
            if context.catalog.objects[row.ownerID]?.deallocSeq != nil { continue }
            if Shape(owner: row.ownerID, channel: row.channelID, context) == .tracking { continue }
            groups[Key(site: row.callSiteID, channel: row.channelID), default: []].append(row)
        }
        for rows in groups.values {
            let rows = rows.sorted { $0.id < $1.id }
            let first = rows[0]
            let channel = context.channel(first.channelID)
            let site = context.site(first.callSiteID)
            let owners = rows.map { context.owner($0.ownerID) }
            let message = rows.count == 1
                ? "\(owners[0])'s registration on \(channel) (\(site)) was still registered when the session ended."
                : "\(rows.count) registrations on \(channel) from \(site) were still registered when the session ended."
            emit(Finding(
                rule: Self.rule, severity: .info, sessionID: context.session.id, message: message,
                evidence: rows.prefix(5).map { "seq \($0.registeredSeq): \(context.owner($0.ownerID)) registered at \(site), never removed" },
                seqs: rows.prefix(5).map(\.registeredSeq), callSites: [site], owners: Array(owners.prefix(5)),
                channel: channel, count: rows.count, fix: Self.fix(owner: first.ownerID, channel: first.channelID, context)
            ))
        }
    }
}
