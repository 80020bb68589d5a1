import Dispatch
import Synchronization

/// A live or removed registration, as the registry stores it.
///
/// A class so the weak owner is read in place during dispatch and the `removed` flag
/// can be seen by a dispatch that took its snapshot before the removal. Immutable but
/// for `removed` (atomic), the weak references (which the runtime makes safe) and
/// `index` (only touched under the registry's lock).
///
/// Not generic: the delivery loop is the registry's hot path, and generic code that is
/// not specialised (the registry's generics are called from other modules) pays for
/// metadata lookups and value witnesses on every delivery. The payload's type is known
/// only inside `call`, built once at registration.
final class RegistrationEntry: @unchecked Sendable {
    let info: RegistrationInfo
    weak var owner: AnyObject?
    /// The sender a notification observer filters by, held weakly.
    weak var sender: AnyObject?
    /// Copies of `info` fields the delivery loop reads for every change.
    let options: ObservationOptions
    let filtersBySender: Bool
    let queue: DispatchQueue?
    let channel: Channel
    let removed = Atomic<Bool>(false)
    /// How it ended; shared with its token.
    let ending: RegistrationEnding
    /// Position in `channel.entries`; kept by the channel, under the registry's lock.
    var index = 0
    /// Calls the typed callback with the owner and the payload, which must be of the
    /// payload type the registration was made for.
    let call: (AnyObject, ErasedPayload) -> Void
    /// The callback hands the value to a consumer on another task: the `AsyncStream` of
    /// `changes()`, `observations(_:)` or `notifications(named:)`, whose registrations a
    /// `ChangeStream` owns. The consumer may act on the value, and even end the stream
    /// (removing the registration), before the hand-off returns, so the delivery is
    /// recorded before the call: a journal never shows a stream's removal before the
    /// delivery that led to it.
    let handsOff: Bool

    init(
        info: RegistrationInfo, owner: AnyObject, sender: AnyObject?, queue: DispatchQueue?,
        channel: Channel, call: @escaping (AnyObject, ErasedPayload) -> Void
    ) {
        self.info = info
        self.owner = owner
        self.ending = RegistrationEnding(owner: owner)
        self.sender = sender
        self.options = info.options
        self.filtersBySender = info.sender != nil
        self.queue = queue
        self.channel = channel
        self.call = call
        self.handsOff = owner is ChangeStream
    }

    var isRemoved: Bool { removed.load(ordering: .acquiring) }
}
