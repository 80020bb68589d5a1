/// A named stretch of an app's life — a screen being visible — that registrations can be
/// declared for.
///
/// Ending the scope removes nothing: it records that the scope ended, so a registration
/// declared for it and still live afterwards can be diagnosed as leaked (a hook left in
/// place when its screen disappeared). Thread-safe.
public final class ObservationScope: Sendable {
    /// The scope's id and name.
    public let info: ScopeInfo
    private let registry: ObserverRegistry

    init(info: ScopeInfo, registry: ObserverRegistry) {
        self.info = info
        self.registry = registry
    }

    /// Records that the scope ended.
    public func end() {
        registry.reportScope(.scopeEnded, info)
    }
}

extension ObserverRegistry {
    /// Begins a named scope (records `scopeBegan`).
    /// - Parameter name: what the scope stands for, such as `"VideoPlayerScreen visible"`.
    /// - Returns: the scope; pass it as `scope:` when registering, and call `end()` when
    ///   the stretch of life it names is over.
    public func beginScope(_ name: String) -> ObservationScope {
        let info = state.withLock { state in
            defer { state.nextScopeID += 1 }
            return ScopeInfo(id: state.nextScopeID, name: name)
        }
        reportScope(.scopeBegan, info)
        return ObservationScope(info: info, registry: self)
    }

    func reportScope(_ kind: ObserverEvent.Kind, _ info: ScopeInfo) {
        guard let sink else { return }
        state.withLock { _ in emit(sink, kind) { $0.scope = info } }
    }
}
