import Dispatch
import Synchronization

/// A live or removed registration, as the registry stores it.
///
/// A class so the weak owner is read in place during dispatch and the `removed` flag
/// can be seen by a dispatch that took its snapshot before the removal. Immutable but
/// for `removed` (atomic), the weak references (which the runtime makes safe) and
/// `index` (only touched under the registry's lock).
class RegistrationEntry: @unchecked Sendable {
    let info: RegistrationInfo
    weak var owner: AnyObject?
    /// The sender a notification observer filters by, held weakly.
    weak var sender: AnyObject?
    let queue: DispatchQueue?
    let channel: Channel
    let removed = Atomic<Bool>(false)
    /// Position in `channel.entries`; kept by the channel, under the registry's lock.
    var index = 0

    init(info: RegistrationInfo, owner: AnyObject, sender: AnyObject?, queue: DispatchQueue?, channel: Channel) {
        self.info = info
        self.owner = owner
        self.sender = sender
        self.queue = queue
        self.channel = channel
    }

    var isRemoved: Bool { removed.load(ordering: .acquiring) }
}

/// A registration with its typed callback. The callback receives the owner, so it need
/// not capture it (and cannot keep it alive by accident).
final class TypedRegistration<Payload>: RegistrationEntry, @unchecked Sendable {
    let callback: (AnyObject, Payload) -> Void

    init(
        info: RegistrationInfo, owner: AnyObject, sender: AnyObject?, queue: DispatchQueue?,
        channel: Channel, callback: @escaping (AnyObject, Payload) -> Void
    ) {
        self.callback = callback
        super.init(info: info, owner: owner, sender: sender, queue: queue, channel: channel)
    }
}
