import ObserverCore
import Testing

// A scope records a stretch of life (a screen being visible); registrations declared for
// it and still live after it ended are what the journal diagnoses as leaked hooks
// (shared/seeds/000).

@Test func registrationsCarryTheirScopeAndTheScopeRecordsItsEnd() {
    let sink = InMemoryEventSink()
    let registry = ObserverRegistry(sink: sink)
    let toolbar = Player()
    let hidden = ObservableValue(false, subject: toolbar, key: "hidden", registry: registry)
    let screen = Screen("videoPlayer")
    let visible = registry.beginScope("VideoPlayerScreen visible")
    screen.tokens.append(hidden.observe(owner: screen, scope: visible) { _, _ in })
    screen.tokens.append(registry.observe(notification: "tap", owner: screen, scope: visible) { _, _ in })
    screen.tokens.append(hidden.observe(owner: screen) { _, _ in })
    visible.end()
    let second = registry.beginScope("Settings visible")
    second.end()
    #expect(sink.kinds == [.scopeBegan, .registered, .registered, .registered, .scopeEnded, .scopeBegan, .scopeEnded])
    let expected = ScopeInfo(id: 1, name: "VideoPlayerScreen visible")
    #expect(visible.info == expected)
    #expect(second.info == ScopeInfo(id: 2, name: "Settings visible"))
    #expect(sink.events.map(\.scope) == [expected, nil, nil, nil, expected, second.info, second.info])
    #expect(sink.events(.registered).map { $0.registration!.scope } == [expected, expected, nil])
    // Ending a scope removes nothing: the leak stays visible.
    #expect(registry.statistics.registrations == 3)
}

@Test func scopesWorkWithoutASink() {
    let registry = ObserverRegistry()
    let scope = registry.beginScope("a")
    let screen = Screen("s")
    let token = registry.observe(notification: "n", owner: screen, scope: scope) { _, _ in }
    scope.end()
    #expect(token.registration.scope == ScopeInfo(id: 1, name: "a"))
    #expect(registry.beginScope("b").info.id == 2)
}
