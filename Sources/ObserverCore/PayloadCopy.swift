/// A copy of a payload whose type only its maker knows, lending a pointer to it: what a
/// delivery queued to another queue carries, so the registry's non-generic post path can
/// keep a payload alive past the post without knowing its type.
@usableFromInline
struct PayloadCopy: Sendable {
    @usableFromInline
    let lend: @Sendable (_ use: (UnsafeRawPointer) -> Void) -> Void

    /// Holds a copy of `payload`.
    @inlinable
    init<Payload: Sendable>(_ payload: Payload) {
        lend = { use in withUnsafePointer(to: payload) { use(UnsafeRawPointer($0)) } }
    }

    /// Calls `use` with a pointer to the payload, valid only during the call.
    func withPointer(_ use: (UnsafeRawPointer) -> Void) {
        lend(use)
    }
}
