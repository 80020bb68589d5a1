/// An object whose `@Observed` properties post their changes through `registry`.
///
/// ```swift
/// final class Player: ObservationSubject, @unchecked Sendable {
///     let registry: ObserverRegistry
///     @Observed var isPlaying = false
///     init(registry: ObserverRegistry) { self.registry = registry }
/// }
/// ```
///
/// `@unchecked Sendable` lets the subject cross isolation in Swift 6 (tasks, actors): the
/// compiler cannot check a class with property wrappers (their storage is a `var`), but
/// `@Observed` is thread-safe and assigned once, in `init`. It stays safe as long as the
/// class's other stored properties are `let`s of `Sendable` types.
public protocol ObservationSubject: AnyObject {
    /// The registry that dispatches (and, when recording, records) the changes of this
    /// object's `@Observed` properties. It must not change during the object's life.
    var registry: ObserverRegistry { get }
}
