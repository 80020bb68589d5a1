/// A change's old and new values as the registry hands them to a sink, without boxing the
/// common ones.
///
/// Why not two `EventValue`s: each is an `any Sendable` existential, and making, copying
/// and destroying them goes through the runtime's value witnesses, on the app's thread,
/// for every recorded change. A value of a plain type of at most 16
/// bytes (`Int`, `Double`, `Bool`, a small struct of numbers: no references) is kept as
/// its bits beside the type that reads them back, so handing it over is a copy of a few
/// words; `EventValue`s are made only when someone reads `old` or `new` (the journal's
/// writer thread). Other values are boxed as before.
///
/// A struct with an optional box, not an enum with an `EventValue` payload: copying such
/// an enum went through the runtime's value witnesses even for its plain case.
@usableFromInline
package struct ChangeValues: Sendable {
    /// Optional values of a plain type, as bits (see the type's comment).
    @usableFromInline let inline: InlineValues?
    /// Values of any other type.
    @usableFromInline let boxed: BoxedValues?

    /// Keeps `old` and `new` as bits when their type allows it (a test the compiler
    /// folds away where `Value` is concrete), boxed otherwise.
    @inlinable
    package init<Value: Sendable>(old: Value?, new: Value?) {
        if InlineValues.fits(Value?.self) {
            inline = InlineValues(old: old, new: new)
            boxed = nil
        } else {
            inline = nil
            boxed = BoxedValues(old: old.map { EventValue($0) }, new: new.map { EventValue($0) })
        }
    }

    /// The values of a change that has only a new value (a notification's payload).
    package init(new: EventValue?) {
        inline = nil
        boxed = BoxedValues(old: nil, new: new)
    }

    /// Whether the values are kept as bits.
    package var isInline: Bool { inline != nil }

    /// The old value, boxed.
    package var old: EventValue? {
        if let inline { return inline.type.eventValue(inline.old) }
        return boxed?.old
    }

    /// The new value, boxed.
    package var new: EventValue? {
        if let inline { return inline.type.eventValue(inline.new) }
        return boxed?.new
    }

    /// The old value when it is an `Int`, `Bool` or `Double` kept as bits (or `nil` of
    /// one), read without boxing: the journal's writer renders these itself.
    package var plainOld: PlainValue { inline.map { $0.plain($0.old) } ?? .other }

    /// The new value, as `plainOld`.
    package var plainNew: PlainValue { inline.map { $0.plain($0.new) } ?? .other }

    /// `plainOld` and `plainNew` of the values at `values`, read where they are: a reader in
    /// another module that calls the accessors on memory it was lent copies the values
    /// (retaining their box) for each call and destroys the copy (the journal's writer
    /// thread, for every change).
    package static func plainValues(at values: UnsafePointer<ChangeValues>) -> (old: PlainValue, new: PlainValue) {
        guard let inline = values.pointee.inline else { return (.other, .other) }
        return (inline.plain(inline.old), inline.plain(inline.new))
    }
}

/// A change's value when it is of a type whose text the journal writes without boxing it.
package enum PlainValue: Sendable, Equatable {
    /// No value (`nil`).
    case absent
    /// An `Int`.
    case int(Int)
    /// A `Bool`.
    case bool(Bool)
    /// A `Double`.
    case double(Double)
    /// A value of another type (or boxed): read it as an `EventValue`.
    case other
}

/// Values not kept as bits.
@usableFromInline
package final class BoxedValues: Sendable {
    let old: EventValue?
    let new: EventValue?

    @usableFromInline
    init(old: EventValue?, new: EventValue?) {
        self.old = old
        self.new = new
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
