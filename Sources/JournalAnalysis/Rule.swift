/// The rule catalog: every problem `diagnose` knows, with a stable code.
///
/// Codes never change meaning and are never reused; scripts and CI configurations may
/// depend on them. `explanation` is what `obsreplay diagnose --explain CODE` prints.
package enum Rule: String, Sendable, Hashable, CaseIterable {
    case lastCallbackWins = "OJ001"
    case duplicateRegistration = "OJ002"
    case removeUnregistered = "OJ003"
    case leakedRegistration = "OJ004"
    case neverPostedKey = "OJ005"
    case deliveryAfterOwnerGone = "OJ006"
    case redundantChange = "OJ007"
    case offMainDelivery = "OJ008"
    case feedbackLoop = "OJ009"
    case slowCallback = "OJ010"
    case uncleanSession = "OJ011"
    case silentChange = "OJ012"
    case subjectReplaced = "OJ013"

    /// The stable code, `OJ001`.
    package var code: String { rawValue }

    /// The stable name, `last-callback-wins`.
    package var name: String {
        switch self {
        case .lastCallbackWins: return "last-callback-wins"
        case .duplicateRegistration: return "duplicate-registration"
        case .removeUnregistered: return "remove-unregistered"
        case .leakedRegistration: return "leaked-registration"
        case .neverPostedKey: return "never-posted-key"
        case .deliveryAfterOwnerGone: return "delivery-after-owner-gone"
        case .redundantChange: return "redundant-change"
        case .offMainDelivery: return "off-main-delivery"
        case .feedbackLoop: return "feedback-loop"
        case .slowCallback: return "slow-callback"
        case .uncleanSession: return "unclean-session"
        case .silentChange: return "silent-change"
        case .subjectReplaced: return "subject-replaced"
        }
    }

    /// Finds a rule by code (`OJ001`, any case) or name (`last-callback-wins`).
    package init?(codeOrName text: String) {
        let wanted = text.lowercased()
        guard let match = Rule.allCases.first(where: { $0.code.lowercased() == wanted || $0.name == wanted }) else {
            return nil
        }
        self = match
    }

    /// The severities the rule can report, most common first.
    package var severities: [Severity] {
        switch self {
        case .lastCallbackWins, .deliveryAfterOwnerGone, .offMainDelivery: return [.error]
        case .duplicateRegistration, .removeUnregistered, .feedbackLoop, .uncleanSession:
            return [.warning]
        case .slowCallback: return [.warning, .info]
        case .leakedRegistration: return [.warning, .info]
        case .neverPostedKey: return [.warning, .info]
        case .redundantChange, .silentChange, .subjectReplaced: return [.info]
        }
    }

    /// One line: what the finding means.
    package var summary: String {
        switch self {
        case .lastCallbackWins:
            return "On a single-slot channel a live owner's callback was replaced by another owner's, or by its own from another call site; the replaced callback silently missed every later change."
        case .duplicateRegistration:
            return "The same owner registered the same call site twice on one channel, with the same sender filter, while the first was live: its callback runs twice per change."
        case .removeUnregistered:
            return "A removal was asked for that matched no live registration (never made, or already removed)."
        case .leakedRegistration:
            return "A registration was still live when its session ended, or outlived the scope it was declared for."
        case .neverPostedKey:
            return "A channel was observed but never posted, often because its key is a typo of one that was."
        case .deliveryAfterOwnerGone:
            return "A callback ran for an owner that had already been deallocated."
        case .redundantChange:
            return "Changes whose old and new values were equal were delivered to callbacks."
        case .offMainDelivery:
            return "A registration that asked for the main thread was called neither on the main thread nor on the main queue."
        case .feedbackLoop:
            return "A change caused, through callbacks, another change of the same channel."
        case .slowCallback:
            return "A callback on main blocked longer than the frame budget, or a background callback used more CPU than it."
        case .uncleanSession:
            return "The session did not end cleanly (the process crashed, was killed, or is still recording)."
        case .subjectReplaced:
            return "An owner outlived the subject it observed, and never registered on the new subject of the same type and key that replaced it."
        case .silentChange:
            return "A channel changed and nobody was told, although owners that had registered on it were still alive and never asked to stop."
        }
    }

    /// What to do about it.
    package var fix: String {
        switch self {
        case .lastCallbackWins:
            return "Make the channel multicast (ObservableValue or a notification) so every owner registers its own callback, or have one owner forward to the others."
        case .duplicateRegistration:
            return "Register once (for example in init or viewDidLoad, not in a method that runs repeatedly), or keep the token and cancel it before registering again."
        case .removeUnregistered:
            return "Remove each registration exactly once, in one place (keep the token and cancel it, or let the owner's deallocation remove it), and check the key's spelling."
        case .leakedRegistration:
            return "Remove the registration when its scope ends (cancel its token there), or tie it to an owner that goes away with the scope."
        case .neverPostedKey:
            return "Check the key's spelling against the keys the subject posts; prefer a shared constant to a string literal."
        case .deliveryAfterOwnerGone:
            return "Let the registry hold the owner weakly (pass it as owner, do not capture it strongly in the callback) and remove registrations when the owner goes."
        case .redundantChange:
            return "Register with .onlyWhenChanged, or do not post when the value did not change."
        case .offMainDelivery:
            return "Register with queue: .main, or post the change from the main thread."
        case .feedbackLoop:
            return "Do not set the observed value from its own callback; compare before setting, or break the cycle with .onlyWhenChanged."
        case .slowCallback:
            return "Move the slow work off the delivering thread (dispatch it to a background queue) and keep callbacks short."
        case .uncleanSession:
            return "Close the journal (close() or the session's end) before the process exits; if it crashed, read the last events shown."
        case .subjectReplaced:
            return "Observe the new subject when it replaces the old one (re-register where the reference is swapped), or observe a longer-lived object that forwards the changes."
        case .silentChange:
            return "Check that the owners who registered are still meant to be told: were they removed, replaced or deallocated too early?"
        }
    }

    /// The documentation `diagnose --explain` prints.
    package var explanation: String {
        let body: String
        switch self {
        case .lastCallbackWins:
            body = """
                A single-slot channel holds one callback, like a plain callback property or a
                delegate. When a second owner assigns it while the first owner is still alive, the
                first owner's callback is replaced without any error, and from then on only the last
                assigner is told anything. The finding names the replaced owner, where it
                registered, when it was replaced and by whom, and how many changes it missed while it
                was alive.

                The same owner assigning the slot again from another call site loses its first
                callback just the same (the seed bug of shared/seeds/004: a screen assigning the
                player's callback in two places); the finding then names the owner and both call
                sites. `replay --what-if multicast` lists the replaced registration (with its call
                site) as having missed those changes.

                Not reported:
                - a replacement after the first owner was deallocated (the slot was already dead);
                - the same owner re-assigning from the same call site (re-running its setup);
                - a hand-over: the replaced registration was declared for a scope (assign(scope:))
                  that had ended when it was replaced, such as a screen's "visible" scope ended
                  in viewWillDisappear before the next screen takes the delegate;
                - a replaced owner that takes the slot back later (assigns it again), whatever
                  changed in between: each screen takes the delegate when it appears, and the
                  changes while another screen was in front were that screen's (the previous
                  screen re-taking the delegate when it comes back);
                - a replaced owner deallocated before the channel changed: it missed nothing
                  (a pushed screen popped and released right after the previous one re-took
                  the delegate; a token kept by the screen records its deallocation);
                - an owner that replaced its own callback and assigned again from the first call
                  site before the channel changed.
                A replaced owner still alive at the end of the session is reported even if no change
                came yet: the next one would be lost.
                """
        case .duplicateRegistration:
            body = """
                The same owner registered twice from the same call site on the same channel, and
                both registrations were live at once. Every change then runs the callback twice:
                usually a registration made in a method that runs more than once (viewWillAppear)
                without removing the previous one. The finding gives both registrations and how
                many changes were delivered twice.

                Not reported: registrations with different sender filters (one per object, as
                addObserver(forName:object:) in a loop over tasks): each hears its own sender,
                so they are different observations. Changes from another sender, which neither
                of a duplicate pair heard, are not counted as delivered twice.
                """
        case .removeUnregistered:
            body = """
                A removal was asked for that matched no live registration: removing twice (in
                dealloc and in removeFromSuperview), removing from the wrong object, or removing a
                misspelled key. The registry treats it as a no-op, but it is a bug worth seeing.
                The finding says whether the registration existed and when and where it was
                already removed.

                Not reported: a callback removing itself during a delivery (that removal matches
                its live registration); cancelling a token whose registration the registry had
                removed by itself (owner or subject deallocated, replaced in a single slot): the
                app could not know, and the journal records it as the no-op event
                cancelAfterAutoRemoval.
                """
        case .leakedRegistration:
            body = """
                warning: a registration declared for a scope (a screen being visible) was still
                live when that scope ended and was then delivered to, or was never removed: the
                hook outlived its screen.

                info: a registration was still live when its (cleanly ended) session ended while its
                owner was alive. Often intended (an app-wide observer), listed so it can be checked.

                Not reported: a registration removed automatically because its owner was
                deallocated, or one whose owner was deallocated before the session ended.
                """
        case .neverPostedKey:
            body = """
                Owners registered on a channel that was never posted in the session. When a key one
                or two edits away was posted on the same kind of subject, the observed key is very
                likely a typo (warning, with the hint). Without such a key the channel may just not
                have changed in this recording (info).

                Sibling keys are not typos: when the same owner observes the posted key too, on
                the same subject (minPrice and maxPrice, only the maximum moved), it knows both
                spellings, and the finding is info, unless the two are one slip apart (a letter
                missing, extra, wrong, or two swapped: contenOffset beside contentOffset). A
                posted key hints only for the never-posted keys closest to it: with minPrice and
                maxPirce observed and maxPrice posted, maxPirce (one swap) gets the hint.
                """
        case .deliveryAfterOwnerGone:
            body = """
                A callback ran after its owner had been seen deallocated, or after its registration
                was removed because the owner was deallocated. The callback is working on an object
                that no longer exists.
                """
        case .redundantChange:
            body = """
                Changes whose old and new values were equal (compared as recorded text) were
                delivered to callbacks that then did work for nothing. Prior notifications are not
                counted.
                """
        case .offMainDelivery:
            body = """
                A registration declared that it expects the main thread (or asked for the main
                queue), and a delivery to it ran off main: UI work off the main thread.

                "On main" is the main thread or the main queue, recorded per event (schema 2,
                events.main_queue, from a dispatch-specific key set on the main queue). Under
                dispatchMain() on Linux the main queue is drained by a thread that is not the main
                thread; a delivery through the main queue there is on main and never reported.
                """
        case .feedbackLoop:
            body = """
                A change was posted from inside a callback that was itself delivering a change of
                the same channel (directly, or through a chain of other channels: A -> B -> A). The
                finding shows the chain, the deepest nesting and the call site of the re-entrant
                post.
                """
        case .slowCallback:
            body = """
                The budget is 16 ms by default (one frame at 60 Hz; diagnose --budget-ms MS changes
                it). Wall time alone is not enough: a microsecond callback preempted on a busy
                machine can take 20 ms of wall time. Each delivery records its thread CPU time
                (CLOCK_THREAD_CPUTIME_ID) next to its wall time, and how often it gave up the CPU
                voluntarily (slept, waited for a lock or I/O; counted on Linux).

                warning: a callback on main (the main thread or the main queue) whose wall time was
                over the budget and that *blocked*: its own CPU time was at least half the budget,
                or it waited voluntarily while it ran. It drops frames.

                info: a callback off main whose CPU time alone was over the budget. It drops no frame
                (it delays what its thread runs next), so it is listed, not a warning; preemption on
                a loaded machine never counts.

                Journals without CPU time (schema 1) are judged on wall time.
                """
        case .uncleanSession:
            body = """
                The session has no clean end: the process crashed or was killed before the journal
                was closed, or it is still recording. The journal holds a consistent prefix of what
                happened; the finding shows the last events recorded.
                """
        case .subjectReplaced:
            body = """
                An owner registered on a subject (a player, a document), the subject was deallocated
                while the owner lived on (the registry removed the registration with reason
                subjectDeallocated, which it only does for a live owner, when the state the subject
                owns - an ObservableValue, a CallbackProperty - went with it, or at the latest
                when the session ended), and a new subject of the
                same type with the same key appeared after the owner's registration; the owner never
                registered on it. The owner is told nothing more and keeps showing the old subject's
                state. Info: sometimes the owner only cared about the old subject. The finding
                names both subjects and the registration's call site.
                """
        case .silentChange:
            body = """
                A change reached nobody (no delivery, no skip) on a channel where owners had
                registered earlier in the session and stopped being told without anyone asking:
                replaced by another owner's callback, or their token released while they lived
                on. Sometimes intended, often the symptom of an earlier removal that came too
                soon (a token not kept, a single-slot callback taken over).

                Not counted: owners that removed their registrations themselves (remove,
                removeAll, cancelling the token): they asked not to be told; and owners that
                were deallocated (their token released with them, the documented happy path, or
                removed by the registry when found dead): they went away, there is nobody
                left to tell.
                """
        }
        let severities = severities.map(\.rawValue).joined(separator: ", ")
        return "\(code) \(name) (\(severities))\n\n\(summary)\n\n\(body)\n\nFix: \(fix)\n"
    }
}
