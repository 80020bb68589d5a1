import JournalAnalysis

/// `obsreplay replay JOURNAL --at SEQ`: the registry's state rebuilt at a point.
enum ReplayCommand {
    static let command = ObsReplay.Command(
        spec: CommandSpec(
            name: "replay",
            abstract: "Rebuild the registry's state at a sequence number: live registrations, and who got the last change.",
            discussion: """
                For every channel, the registrations live at SEQ (owner, call site, alive or
                "owner gone, not yet swept": the registry removes a dead owner's registration
                lazily); for the change at or before SEQ, who received it, who did not, and
                why. --what-if multicast replays single-slot channels as multicast and prints,
                per change up to SEQ, which registrations would have received it.
                JSON (--json): an object with session, at, time_ns, channels, change, what_if.
                """,
            arguments: [CommonOptions.journal],
            options: [CommonOptions.session, at, whatIf, CommonOptions.json]
        ),
        run: run
    )

    static let at = ValueOption.integer("at", value: "seq", help: "The sequence number to rebuild the state at.").required
    static let whatIf = ValueOption<WhatIf>.choice(
        "what-if", value: "mode", help: "Replay single-slot channels as another policy: multicast."
    )

    enum WhatIf: String, CaseIterable { case multicast }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws(CLIError) -> Int32 {
        let sessionID = try arguments.value(CommonOptions.session)
        let at = try arguments.value(Self.at)
        let whatIf = try arguments.value(Self.whatIf) == .multicast
        let reader = try context.openJournal(arguments.argument(CommonOptions.journal))
        let state = try analysing { () throws(AnalysisError) in
            let session = try reader.session(sessionID)
            return try ReplayEngine.replay(reader, session: session, at: at, whatIfMulticast: whatIf)
        }
        if arguments.flag(CommonOptions.json) {
            context.json(json(state))
        } else {
            printText(state, context)
        }
        return ExitCode.success
    }

    static func printText(_ state: ReplayState, _ context: CommandContext) {
        let style = context.style
        context.line("session \(state.sessionID) at seq \(state.at) (\(relativeTime(state.timeNs)))", paint: style.bold)
        context.line("")
        if state.channels.isEmpty {
            context.line("no live registrations")
        } else {
            context.line("live registrations:")
        }
        for channel in state.channels {
            // Registrations of dead owners wait to be swept: counted apart, not as observers.
            let gone = channel.registrations.filter { !$0.ownerAlive }.count
            let goneText = gone == 0 ? "" : ", \(gone) of them owner gone"
            context.line("  \(channel.channel) (\(channel.policy), \(channel.registrations.count) live\(goneText))")
            for entry in channel.registrations {
                var text = "    reg \(entry.registrationID)  \(entry.owner)  \(entry.callSite)  since seq \(entry.registeredSeq)  "
                text += entry.ownerAlive ? "alive" : "owner gone, not yet swept"
                if let scope = entry.scope { text += "  scope \"\(scope)\"" }
                context.line(text)
            }
        }
        if let change = state.change {
            context.line("")
            var text = "change at seq \(change.seq): \(change.channel)"
            if change.old != nil || change.new != nil {
                text += "  \(TerminalText.value(change.old)) → \(TerminalText.value(change.new))"
            }
            if change.isPrior { text += " (prior)" }
            if let site = change.callSite { text += "  posted at \(site)" }
            context.line(text, paint: style.bold)
            context.line("  received (\(change.received.count)):")
            for receiver in change.received {
                var line = "    reg \(receiver.registrationID)  \(receiver.owner)  \(receiver.callSite)  at seq \(receiver.seq)"
                if let duration = receiver.durationNs { line += "  \(milliseconds(duration))" }
                context.line(line)
            }
            context.line("  not received (\(change.notReceived.count)):")
            for missed in change.notReceived {
                context.line("    reg \(missed.registrationID)  \(missed.owner)  \(missed.callSite)  \(missed.reason)")
            }
        } else {
            context.line("")
            context.line("no change at or before seq \(state.at)")
        }
        if let whatIf = state.whatIf {
            context.line("")
            context.line("what if single-slot channels were multicast (\(whatIf.count) changes up to seq \(state.at)):", paint: style.bold)
            for change in whatIf {
                let received = change.received.isEmpty ? "nobody" : change.received.joined(separator: ", ")
                let would = change.wouldReceive.isEmpty ? "nobody" : change.wouldReceive.joined(separator: ", ")
                var line = "  seq \(change.seq)  \(change.channel)  received: \(received)  would have: \(would)"
                if !change.missed.isEmpty { line += "  missed: \(change.missed.joined(separator: ", "))" }
                context.line(line)
            }
        }
    }

    static func json(_ state: ReplayState) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("session", .int(state.sessionID)), ("at", .int(state.at)), ("time_ns", .int(state.timeNs)),
            ("channels", .array(state.channels.map { channel in
                .object([
                    ("channel_id", .int(channel.channelID)), ("channel", .string(channel.channel)),
                    ("policy", .string(channel.policy)),
                    ("registrations", .array(channel.registrations.map { entry in
                        .object([
                            ("registration_id", .int(entry.registrationID)), ("owner", .string(entry.owner)),
                            ("owner_alive", .bool(entry.ownerAlive)), ("call_site", .string(entry.callSite)),
                            ("registered_seq", .int(entry.registeredSeq)), ("options", .string(entry.options)),
                            ("scope", .text(entry.scope)),
                        ])
                    })),
                ])
            })),
        ]
        if let change = state.change {
            members.append(("change", .object([
                ("seq", .int(change.seq)), ("channel", .string(change.channel)), ("policy", .string(change.policy)),
                ("old", .text(change.old)), ("new", .text(change.new)), ("is_prior", .bool(change.isPrior)),
                ("depth", .int(Int64(change.depth))), ("call_site", .text(change.callSite)),
                ("received", .array(change.received.map { receiver in
                    .object([
                        ("registration_id", .int(receiver.registrationID)), ("owner", .string(receiver.owner)),
                        ("call_site", .string(receiver.callSite)), ("seq", .int(receiver.seq)),
                        ("duration_ns", .number(receiver.durationNs)),
                    ])
                })),
                ("not_received", .array(change.notReceived.map { missed in
                    .object([
                        ("registration_id", .int(missed.registrationID)), ("owner", .string(missed.owner)),
                        ("owner_alive", .bool(missed.ownerAlive)), ("call_site", .string(missed.callSite)),
                        ("reason", .string(missed.reason)), ("seq", .number(missed.seq)),
                    ])
                })),
            ])))
        } else {
            members.append(("change", .null))
        }
        members.append(("what_if", state.whatIf.map { changes in
            .array(changes.map { change in
                .object([
                    ("seq", .int(change.seq)), ("channel", .string(change.channel)),
                    ("received", .array(change.received.map(JSONValue.string))),
                    ("would_receive", .array(change.wouldReceive.map(JSONValue.string))),
                    ("missed", .array(change.missed.map(JSONValue.string))),
                ])
            })
        } ?? .null))
        return .object(members)
    }
}
