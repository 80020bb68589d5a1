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
