/// A payload whose type only the registration's callback knows, lent for one call: the
/// registry's post and delivery path is not generic (generic code called from other
/// modules runs unspecialised, paying metadata lookups and value witnesses per delivery),
/// so it passes each payload by its address.
///
/// The one type that holds such an address. Only its maker (`lending`, which keeps the
/// value alive for the call) and the callback built with the payload's type
/// (`load(as:)`) touch the memory; the registry between them only passes it on. Valid
/// only during the call it is lent to: a delivery queued for later holds a `PayloadCopy`.
@usableFromInline
struct ErasedPayload {
    @usableFromInline let address: UnsafeRawPointer

    @inlinable
    init(address: UnsafeRawPointer) {
        self.address = address
    }

    /// The payload, which must be of type `type` (the type its channel carries).
    @inlinable
    func load<Value>(as type: Value.Type) -> Value {
        address.assumingMemoryBound(to: Value.self).pointee
    }

    /// A pointer to the payload, which must be of type `type`. The former spelling of
    /// `load(as:)` (`payload.assumingMemoryBound(to: T.self).pointee`), for callbacks that
    /// still use it; new code calls `load(as:)`.
    func assumingMemoryBound<Value>(to type: Value.Type) -> UnsafePointer<Value> {
        address.assumingMemoryBound(to: Value.self)
    }

    /// Lends `value` as a payload to `body`.
    @inlinable
    static func lending<Value, Result>(_ value: Value, _ body: (ErasedPayload) -> Result) -> Result {
        withUnsafePointer(to: value) { body(ErasedPayload(address: UnsafeRawPointer($0))) }
    }

    /// Lends `value` as a payload to `body`, with a slot through which `body` may still
    /// read and write it in place (a post fills in the old value while the payload is lent).
    @inlinable
    static func lending<Value, Result>(
        _ value: inout Value, _ body: (ErasedPayload, Slot<Value>) -> Result
    ) -> Result {
        withUnsafeMutablePointer(to: &value) { pointer in
            body(ErasedPayload(address: UnsafeRawPointer(pointer)), Slot(pointer: pointer))
        }
    }

    /// The lent value, for the code that lent it: read and written in place, never copied
    /// whole.
    @usableFromInline
    struct Slot<Value> {
        @usableFromInline let pointer: UnsafeMutablePointer<Value>

        @inlinable
        init(pointer: UnsafeMutablePointer<Value>) {
            self.pointer = pointer
        }

        /// Runs `body` on the value in place.
        @inlinable
        func access<Result>(_ body: (inout Value) -> Result) -> Result {
            body(&pointer.pointee)
        }
    }
}
