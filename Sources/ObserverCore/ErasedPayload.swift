// ObserverCore's code that reads or writes memory by its address, apart from the thread
// context's own storage (`ThreadContext`): the payload lent to a delivery
// (`ErasedPayload`), a change's plain values kept as bits (`InlineValues`), and the
// delivery loop's unretained reading of a snapshot (`forEachUnretained`). A value is read
// back only with the type it was made from; everything else uses these types' safe API.

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
package struct ErasedPayload {
    @usableFromInline let address: UnsafeRawPointer

    @inlinable
    init(address: UnsafeRawPointer) {
        self.address = address
    }

    /// The payload, which must be of type `type` (the type its channel carries).
    @inlinable
    package func load<Value>(as type: Value.Type) -> Value {
        address.assumingMemoryBound(to: Value.self).pointee
    }

    /// Lends `value` as a payload to `body`.
    @inlinable
    package static func lending<Value, Result>(_ value: Value, _ body: (ErasedPayload) -> Result) -> Result {
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

// MARK: - A snapshot's entries, unretained

extension ContiguousArray where Element == RegistrationEntry? {
    /// Calls `body` with each entry of this snapshot, in order, without retaining it (no
    /// retain and release per delivery). Sound only because the caller holds the snapshot
    /// for the whole call, which keeps every entry alive: `body` may keep an entry beyond
    /// its call only through a strong reference it makes itself (`dead.append`).
    @inline(__always)
    func forEachUnretained(_ body: (RegistrationEntry) -> Void) {
        withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: Unmanaged<RegistrationEntry>?.self) { entries in
                for slot in entries {
                    guard let slot else { continue }
                    slot._withUnsafeGuaranteedRef(body)
                }
            }
        }
    }
}

// MARK: - Values kept as bits

extension ChangeValues {
    /// `plainOld` and `plainNew` of the values at `values`, read where they are: a reader in
    /// another module that calls the accessors on memory it was lent copies the values
    /// (retaining their box) for each call and destroys the copy (the journal's writer
    /// thread, for every change).
    package static func plainValues(at values: UnsafePointer<ChangeValues>) -> (old: PlainValue, new: PlainValue) {
        guard let inline = values.pointee.inline else { return (.other, .other) }
        return (inline.plain(inline.old), inline.plain(inline.new))
    }
}

/// The bits of a plain value of at most 16 bytes.
@usableFromInline
package typealias InlineBits = (UInt64, UInt64)

/// Two optional values of one plain type, as bits, with the type that reads them back.
/// Plain data: copying it is a copy of its words, with no reference counting.
@usableFromInline
package struct InlineValues: Sendable {
    @usableFromInline let type: any InlineValueReader.Type
    @usableFromInline let old: InlineBits
    @usableFromInline let new: InlineBits

    /// Whether values of `type` can be kept as bits: no references, at most 16 bytes,
    /// aligned to at most 8.
    @inlinable
    static func fits<Value>(_ type: Value.Type) -> Bool {
        _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<InlineBits>.size
            && MemoryLayout<Value>.alignment <= MemoryLayout<InlineBits>.alignment
    }

    /// Only for a `Value?` that `fits`.
    @inlinable
    init<Value: Sendable>(old: Value?, new: Value?) {
        type = InlineValueType<Value>.self
        self.old = Self.bits(old)
        self.new = Self.bits(new)
    }

    /// `bits` read as an `Int?`, `Bool?` or `Double?` when that is the type (a comparison
    /// of metatypes, no dynamic cast).
    func plain(_ bits: InlineBits) -> PlainValue {
        func load<Value>(_: Value.Type) -> Value? {
            withUnsafeBytes(of: bits) { $0.load(as: Value?.self) }
        }
        let type = ObjectIdentifier(self.type)
        if type == ObjectIdentifier(InlineValueType<Int>.self) { return load(Int.self).map { .int($0) } ?? .absent }
        if type == ObjectIdentifier(InlineValueType<Bool>.self) { return load(Bool.self).map { .bool($0) } ?? .absent }
        if type == ObjectIdentifier(InlineValueType<Double>.self) { return load(Double.self).map { .double($0) } ?? .absent }
        return .other
    }

    @inlinable
    static func bits<Value>(_ value: Value) -> InlineBits {
        var bits: InlineBits = (0, 0)
        _ = withUnsafeMutableBytes(of: &bits) { $0.baseAddress!.initializeMemory(as: Value.self, to: value) }
        return bits
    }
}

/// Reads an optional value of one plain type back from its bits.
@usableFromInline
package protocol InlineValueReader: Sendable {
    /// The value `bits` hold, boxed; `nil` for `nil`.
    static func eventValue(_ bits: InlineBits) -> EventValue?
}

/// The reader of `Value?`: its metatype, stored in `InlineValues`, is plain data.
@usableFromInline
enum InlineValueType<Value: Sendable>: InlineValueReader {
    @usableFromInline
    static func eventValue(_ bits: InlineBits) -> EventValue? {
        // The closure returns the concrete `EventValue?`: returning `Value?` made it a generic
        // argument of `withUnsafeBytes`, whose metadata the runtime then looks up on every
        // read, unspecialised here (on the writer thread, for every value read).
        withUnsafeBytes(of: bits) { raw -> EventValue? in
            guard let value = raw.load(as: Value?.self) else { return nil }
            return EventValue(value)
        }
    }
}
