/// Declares an observable stored property of an `ObservationSubject` class, without
/// ceremony: its key is the property's name, and its subject the enclosing object.
///
/// ```swift
/// @Observed var isPlaying = false       // the channel Player#1.isPlaying
/// ```
///
/// Reading and assigning the property read and set the value (assigning posts a change,
/// without a call site: use `$isPlaying.set(_:)` to record where). `$isPlaying` is the
/// property's `ObservableValue`, with its whole API: `observe`, `observeOnMain`,
/// `changes()`, `set`.
///
/// The `ObservableValue` is made on first use (a read, an assignment or `$`), from the
/// enclosing object and its `registry`, with the key derived once from the property's
/// name. That first use may happen on several threads at once: it is made under a lock,
/// exactly once. For `Equatable` values, registrations may use `.onlyWhenChanged`.
///
/// Only for classes (the enclosing instance is needed); in a struct it does not compile.
/// The wrapper is `Sendable` and thread-safe, but like every property wrapper its backing
/// storage is a `var`, so a class declaring `Sendable` conformance needs `@unchecked`
/// (safe: the storage is assigned once, in `init`; see `ObservationSubject`).
@propertyWrapper
public final class Observed<Value: Sendable>: Sendable {
    private enum State {
        case unbound(Value)
        case bound(ObservableValue<Value>)
    }

    private let state: Protected<State>
    private let make: @Sendable (Value, AnyObject, String, ObserverRegistry) -> ObservableValue<Value>

    /// Declares the property with its initial value.
    /// - Parameter wrappedValue: the starting value (not a change).
    public init(wrappedValue: Value) {
        state = Protected(.unbound(wrappedValue))
        make = { ObservableValue($0, subject: $1, key: $2, registry: $3) }
    }

    /// Declares the property with its initial value; registrations may use
    /// `.onlyWhenChanged`.
    /// - Parameter wrappedValue: the starting value (not a change).
    public init(wrappedValue: Value) where Value: Equatable {
        state = Protected(.unbound(wrappedValue))
        make = { ObservableValue($0, subject: $1, key: $2, registry: $3) }
    }

    /// Not used: Swift reaches the property through the enclosing-instance subscripts,
    /// and a property wrapper must still declare `wrappedValue`. Unavailable, so nothing
    /// can call it.
    @available(*, unavailable, message: "@Observed is only for properties of ObservationSubject classes")
    public var wrappedValue: Value {
        get { fatalError("unreachable: @Observed is accessed through its enclosing instance") }
        set { fatalError("unreachable: @Observed is accessed through its enclosing instance") }
    }

    /// Not used directly: `$name` goes through the enclosing-instance subscript.
    @available(*, unavailable, message: "@Observed is only for properties of ObservationSubject classes")
    public var projectedValue: ObservableValue<Value> {
        fatalError("unreachable: @Observed is accessed through its enclosing instance")
    }

    /// The property's value, read and set through the enclosing object.
    public static subscript<Subject: ObservationSubject>(
        _enclosingInstance subject: Subject,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Subject, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Subject, Observed<Value>>
    ) -> Value {
        get { subject[keyPath: storageKeyPath].observable(subject, storageKeyPath).value }
        set { subject[keyPath: storageKeyPath].observable(subject, storageKeyPath).value = newValue }
    }

    /// The property's `ObservableValue` (`$name`).
    public static subscript<Subject: ObservationSubject>(
        _enclosingInstance subject: Subject,
        projected projectedKeyPath: KeyPath<Subject, ObservableValue<Value>>,
        storage storageKeyPath: ReferenceWritableKeyPath<Subject, Observed<Value>>
    ) -> ObservableValue<Value> {
        subject[keyPath: storageKeyPath].observable(subject, storageKeyPath)
    }

    /// The value box, made on first use under the lock.
    private func observable<Subject: ObservationSubject>(
        _ subject: Subject, _ storage: ReferenceWritableKeyPath<Subject, Observed<Value>>
    ) -> ObservableValue<Value> {
        state.withLock { state in
            switch state {
            case .bound(let value):
                return value
            case .unbound(let initial):
                let value = make(initial, subject, Self.propertyName(of: subject, storage: storage), subject.registry)
                state = .bound(value)
                return value
            }
        }
    }

    /// The declared name: the backing storage is `_name`, so its key path reads
    /// `\Player._isPlaying`; if the runtime cannot name it, the enclosing object's
    /// reflection finds the stored property holding this wrapper.
    private static func propertyName<Subject: AnyObject>(
        of subject: Subject, storage: ReferenceWritableKeyPath<Subject, Observed<Value>>
    ) -> String {
        let described = String(describing: storage)
        if let dot = described.lastIndex(of: "."), described[described.index(after: dot)...].hasPrefix("_") {
            return String(described[described.index(dot, offsetBy: 2)...])
        }
        let wrapper = subject[keyPath: storage]
        var mirror: Mirror? = Mirror(reflecting: subject)
        while let current = mirror {
            for child in current.children where (child.value as AnyObject) === wrapper {
                if let label = child.label { return label.hasPrefix("_") ? String(label.dropFirst()) : label }
            }
            mirror = current.superclassMirror
        }
        return described
    }
}
