import Synchronization

/// How a registration ended, shared by the registry's entry and the registration's token.
///
/// The token outlives the entry (the registry forgets a removed registration at once), so
/// it keeps this small box to tell, when cancelled, whether the registry had already
/// removed the registration by itself (owner or subject deallocated, replaced in a single
/// slot) — a no-op worth recording as such — or whether it was removed on request before,
/// which makes the cancel a second removal. Thread-safe: written under the registry's
/// lock, read under it too.
final class RegistrationEnding: @unchecked Sendable {
    /// 0 while live; otherwise the index of the reason in `RemovalReason.allCases`, plus one.
    private let code = Atomic<UInt8>(0)
    /// The registration's owner, so a token released in the owner's `deinit` can tell,
    /// after the registration went, that the owner is being deallocated. Set once in
    /// `init`; weak references are safe to read from any thread.
    private(set) weak var owner: AnyObject?

    init(owner: AnyObject) {
        self.owner = owner
    }

    func record(_ reason: RemovalReason) {
        let index = RemovalReason.allCases.firstIndex(of: reason) ?? 0
        code.store(UInt8(index + 1), ordering: .relaxed)
    }

    /// How it ended, or `nil` while live.
    var reason: RemovalReason? {
        let value = Int(code.load(ordering: .relaxed))
        return value == 0 ? nil : RemovalReason.allCases[value - 1]
    }

    /// Whether the registry removed it without being asked.
    var wasAutomatic: Bool {
        switch reason {
        case .ownerDeallocated?, .subjectDeallocated?, .replaced?: return true
        default: return false
        }
    }
}
