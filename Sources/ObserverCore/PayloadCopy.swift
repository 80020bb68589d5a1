/// A copy of a payload whose type only its maker knows, lending it as an `ErasedPayload`:
/// what a delivery queued to another queue carries, so the registry's non-generic post
/// path can keep a payload alive past the post without knowing its type.
@usableFromInline
struct PayloadCopy: Sendable {
    @usableFromInline
    let lend: @Sendable (_ use: (ErasedPayload) -> Void) -> Void

    /// Holds a copy of `payload`.
    @inlinable
    init<Payload: Sendable>(_ payload: Payload) {
        lend = { use in ErasedPayload.lending(payload, use) }
    }

    /// Calls `use` with the payload, lent only during the call.
    func withPayload(_ use: (ErasedPayload) -> Void) {
        lend(use)
    }
}
