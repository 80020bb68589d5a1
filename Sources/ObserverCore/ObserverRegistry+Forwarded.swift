/// Support for channels whose deliveries another dispatcher makes (Foundation's
/// `NotificationCenter`, behind `RecordingNotificationCenter`): the registry keeps their
/// registrations and records their posts and deliveries, but never calls them itself.
extension ObserverRegistry {
    /// Records a post on `channel` (a `changed` event with `value` as its new value, none
    /// when `value` returns `nil`), under
    /// the channel's lock like a dispatch, so it is ordered with the registrations around it. `value`
    /// runs before the lock is taken: it may ask the registry to name objects.
    func recordForwardedPost(on channel: Channel, value: () -> String?, callSite: CallSite?) {
        guard let sink else { return }
        let text = value().map { EventValue($0) }
        channel.exclusive {
            let number = takeChangeNumber()
            if hasRecordSink {
                // No delivery loop follows (the other dispatcher delivers, unnumbered), so
                // the thread's loop answers are not set (`recordChanged`).
                recordChanged(
                    context: ThreadContext.current, channel: channel, values: ChangeValues(new: text),
                    isPrior: false, callSite: callSite, change: number
                )
                return
            }
            emit(sink, .changed) {
                $0.channel = channel.info
                $0.new = text
                $0.liveCount = channel.liveCount
                $0.callSite = callSite
                $0.changeNumber = number
            }
        }
    }

    /// Runs `entry`'s callback with `payload` for the other dispatcher, timed and recorded
    /// as a delivery when a sink is installed (with no change number: the other dispatcher
    /// does not say which post it delivers). `carrier` is passed as the callback's owner
    /// argument (the entry's own owner is held weakly and may be gone: the other dispatcher
    /// still calls, and the journal then shows a delivery after the owner went). `initial`:
    /// the registration's first value, recorded on the delivery, which no change precedes.
    func deliverForwarded<Payload>(
        _ entry: RegistrationEntry, carrier: AnyObject, payload: Payload, initial: EventValue? = nil
    ) {
        ErasedPayload.lending(payload) { payload in
            guard hasSink else {
                entry.call(carrier, payload)
                return
            }
            let depth = ThreadContext.current.depth
            if let initial {
                invokeRecorded(entry, owner: carrier, payload: payload, depth: depth, initial: initial, change: 0)
            } else {
                invokeRecorded(entry, owner: carrier, payload: payload, depth: depth, change: 0)
            }
        }
    }

    /// Reports a removal of `object` that matched none of its registrations (it was never
    /// added), naming the channel `key` when the request named one.
    func reportForwardedUnregistered(object: AnyObject, key: String?, callSite: CallSite) {
        guard sink != nil else { return }
        state.withLock { state in
            let ref = state.identities.ref(for: object)
            let channel = key.map { key in
                state.channels[ChannelKey(subject: ObjectRef.any.id, key: key)]?.info
                    ?? ChannelInfo(id: 0, subject: .any, key: key, policy: .multicast)
            }
            reportUnregisteredLocked(channel: channel, registration: nil, owner: ref, callSite: callSite)
        }
    }

    /// Reports a removal that did not reach `registration` (asked of a center that does
    /// not deliver to it): `removeUnregistered` naming the registration, which stays live.
    func reportForwardedUnmatched(_ registration: RegistrationInfo, callSite: CallSite) {
        guard sink != nil else { return }
        state.withLock { state in
            reportUnregisteredLocked(
                channel: state.registrations[registration.id]?.channel.info, registration: registration,
                owner: registration.owner, callSite: callSite
            )
        }
    }

    /// `Type#N` for `object`, as the journal names it.
    func describe(_ object: AnyObject) -> String {
        state.withLock { $0.identities.ref(for: object).description }
    }
}
