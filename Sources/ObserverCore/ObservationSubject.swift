/// An object whose `@Observed` properties post their changes through `registry`.
///
/// ```swift
/// final class Player: ObservationSubject {
///     let registry: ObserverRegistry
///     @Observed var isPlaying = false
///     init(registry: ObserverRegistry) { self.registry = registry }
/// }
/// ```
public protocol ObservationSubject: AnyObject {
    /// The registry that dispatches (and, when recording, records) the changes of this
    /// object's `@Observed` properties. It must not change during the object's life.
    var registry: ObserverRegistry { get }
}
