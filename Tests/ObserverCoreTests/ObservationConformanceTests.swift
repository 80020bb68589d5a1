import Observation
import ObserverCore
import Synchronization
import Testing

// Swift Observation's documented behaviours, each checked on the original (`Observations`,
// `withObservationTracking`) and on the recorded drop-in (`registry.observations`,
// `registry.withObservationTracking`, with a sink so the recording path runs), asserting
// the same results. docs/CONFORMANCE.md has the table. Nothing waits without a bound: every
// asynchronous check runs under `bounded`, which cancels it and fails after 20 seconds.

/// Which implementation a check runs on.
enum ObservationImplementation: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case original, dropIn
    var testDescription: String { rawValue }
}

@MainActor @Observable
final class ConformanceModel {
    var value = 0
    var name = "test"
    @ObservationIgnored var ignored = 0
    @ObservationIgnored var failing = false
}

/// A step function over either implementation's iterator, on the main actor.
@MainActor
final class Steps<Element: Sendable> {
    private let step: @MainActor () async -> Element?

    init(_ implementation: ObservationImplementation, _ registry: ObserverRegistry, _ emit: @escaping @MainActor () -> Element) {
        switch implementation {
        case .original:
            guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else {
                step = { nil }
                return
            }
            var iterator = Observations<Element, Never> { emit() }.makeAsyncIterator()
            step = { await iterator.next() }
        case .dropIn:
            var iterator = registry.observations { emit() }.makeAsyncIterator()
            step = { await iterator.next() }
        }
    }

    func next() async -> Element? { await step() }

    /// The first value, then the next one after `change` ran in a task of its own (made
    /// once the first value was taken), both under `bounded`.
    func firstAndNext(
        afterTask change: @escaping @MainActor @Sendable () -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> [Element?]? {
        await bounded({
            let first = await self.next()
            Task { change() }
            return [first, await self.next()]
        }, sourceLocation: sourceLocation)
    }
}

/// Runs `body`, failing (and cancelling it) if it has not finished within 20 seconds.
func bounded<T: Sendable>(
    _ body: @escaping @MainActor @Sendable () async -> T, sourceLocation: SourceLocation = #_sourceLocation
) async -> T? {
    let first = await withTaskGroup(of: T?.self, returning: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(20))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
    if first == nil { Issue.record("timed out: an observation never delivered", sourceLocation: sourceLocation) }
    return first
}

/// One step of an iterator whose `emit` may throw: its value, `nil`, or `threw`.
@MainActor
func step<Iterator: AsyncIteratorProtocol>(_ iterator: inout Iterator) async -> String where Iterator.Element == Int {
    do {
        return try await iterator.next(isolation: MainActor.shared).map(String.init) ?? "nil"
    } catch {
        return "threw"
    }
}

private func recordingRegistry() -> ObserverRegistry { ObserverRegistry(sink: InMemoryEventSink()) }

@MainActor
@Suite struct ObservationConformanceTests {
    // MARK: - Observations

    @Test(arguments: ObservationImplementation.allCases)
    func theFirstValueIsComputedAtTheFirstStep(_ implementation: ObservationImplementation) async {
        let model = ConformanceModel()
        let steps = Steps(implementation, recordingRegistry()) { model.value }
        model.value = 7                                 // after the sequence was made
        #expect(await bounded { await steps.next() } == 7)
    }

    @Test(arguments: ObservationImplementation.allCases)
    func aChangeAfterTheFirstValueIsTheNextValue(_ implementation: ObservationImplementation) async {
        let model = ConformanceModel()
        let steps = Steps(implementation, recordingRegistry()) { model.value }
        let values = await steps.firstAndNext(afterTask: { model.value = 42 })
        #expect(values == [0, 42])
    }

    @Test(arguments: ObservationImplementation.allCases)
    func propertiesSetTogetherAreOneSettledValue(_ implementation: ObservationImplementation) async {
        let model = ConformanceModel()
        let steps = Steps(implementation, recordingRegistry()) { "\(model.name):\(model.value)" }
        let values = await steps.firstAndNext(afterTask: {
            model.name = "updated"
            model.value = 100
        })
        #expect(values == ["test:0", "updated:100"])
    }

    @Test(arguments: ObservationImplementation.allCases)
    func aBurstOfChangesIsItsLatestValue(_ implementation: ObservationImplementation) async {
        let model = ConformanceModel()
        let steps = Steps(implementation, recordingRegistry()) { model.value }
        let values = await steps.firstAndNext(afterTask: { for value in 1...5 { model.value = value } })
        #expect(values == [0, 5])
    }

    @Test(arguments: ObservationImplementation.allCases)
    func aChangeMadeWhileTheLoopWasBusyIsNotLost(_ implementation: ObservationImplementation) async {
        let model = ConformanceModel()
        let steps = Steps(implementation, recordingRegistry()) { model.value }
        let values = await bounded {
            let first = await steps.next()
            model.value = 3                             // before the loop asks again
            return [first, await steps.next()]
        }
        #expect(values == [0, 3])
    }

    @Test(arguments: ObservationImplementation.allCases)
    func twoIteratorsOfOneSequenceEachSeeEveryValue(_ implementation: ObservationImplementation) async {
        let model = ConformanceModel()
        let registry = recordingRegistry()
        let results = await bounded {
            let first = Steps(implementation, registry) { model.value }
            let second = Steps(implementation, registry) { model.value }
            async let a = [first.next(), first.next(), first.next()]
            async let b = [second.next(), second.next(), second.next()]
            let changes = Task {
                await Task.yield()
                model.value = 100
                await Task.yield()
                model.value = 200
            }
            let both = await [a, b]
            await changes.value
            return both
        }
        #expect(results?.map(\.count) == [3, 3])
        #expect(results?.map(\.first) == [0, 0])
        #expect(results?.map(\.last) == [200, 200])
    }

    @Test(arguments: ObservationImplementation.allCases)
    func aCancelledLoopEndsWithoutAValue(_ implementation: ObservationImplementation) async {
        let model = ConformanceModel()
        let steps = Steps(implementation, recordingRegistry()) { model.value }
        let values = await bounded {
            var started = false
            let loop = Task { @MainActor in
                var seen: [Int?] = [await steps.next()]
                started = true
                seen.append(await steps.next())         // waits for a change that never comes
                return seen
            }
            while !started { await Task.yield() }
            loop.cancel()
            return await loop.value
        }
        #expect(values == [0, nil])
    }

    @Test(arguments: ObservationImplementation.allCases)
    func aThrownErrorEndsTheSequence(_ implementation: ObservationImplementation) async throws {
        struct Failed: Error, Equatable {}
        let model = ConformanceModel()
        let outcome = await bounded { () async -> [String] in
            switch implementation {
            case .original:
                guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return [] }
                var iterator = Observations { () throws(Failed) -> Int in
                    if model.failing { throw Failed() }
                    return model.value
                }.makeAsyncIterator()
                let first = await step(&iterator)
                Task { model.failing = true; model.value = 1 }
                return [first, await step(&iterator), await step(&iterator)]
            case .dropIn:
                var iterator = recordingRegistry().observations { () throws(Failed) -> Int in
                    if model.failing { throw Failed() }
                    return model.value
                }.makeAsyncIterator()
                let first = await step(&iterator)
                Task { model.failing = true; model.value = 1 }
                return [first, await step(&iterator), await step(&iterator)]
            }
        }
        #expect(outcome == ["0", "threw", "nil"])
    }

    // MARK: - withObservationTracking

    /// `withObservationTracking` on either implementation.
    private func track<T>(
        _ implementation: ObservationImplementation, _ registry: ObserverRegistry, _ apply: () -> T,
        onChange: @autoclosure () -> @Sendable () -> Void
    ) -> T {
        switch implementation {
        case .original: withObservationTracking(apply, onChange: onChange())
        case .dropIn: registry.withObservationTracking(apply, onChange: onChange())
        }
    }

    @Test(arguments: ObservationImplementation.allCases)
    func onChangeRunsOnceBeforeTheFirstChangeLands(_ implementation: ObservationImplementation) {
        let model = ConformanceModel()
        let seen = ConformanceSeen()
        let result = track(implementation, recordingRegistry(), { model.value + 1 }, onChange: { @Sendable in
            MainActor.assumeIsolated { seen.add(model.value) }      // willSet: still the old value
        })
        model.value = 1
        model.value = 2
        #expect(result == 1)
        #expect(seen.values == [0])
    }

    @Test(arguments: ObservationImplementation.allCases)
    func onChangeIsAskedForOnlyWhenApplyReadSomething(_ implementation: ObservationImplementation) {
        let model = ConformanceModel()
        let asked = ConformanceSeen()
        let registry = recordingRegistry()
        func handler() -> @Sendable () -> Void {
            asked.add(1)
            return {}
        }
        let captured = model.value
        track(implementation, registry, { _ = captured }, onChange: handler())
        #expect(asked.values == [])
        track(implementation, registry, { _ = model.value }, onChange: handler())
        #expect(asked.values == [1])
    }

    @Test(arguments: ObservationImplementation.allCases)
    func changesOfPropertiesNotReadDoNotFire(_ implementation: ObservationImplementation) {
        let model = ConformanceModel()
        let fired = ConformanceSeen()
        track(implementation, recordingRegistry(), { _ = model.value }, onChange: { fired.add(1) })
        model.name = "other"
        model.ignored = 5
        #expect(fired.values == [])
        model.value = 1
        #expect(fired.values == [1])
    }

    @Test(arguments: ObservationImplementation.allCases)
    func anIgnoredPropertyIsNotTracked(_ implementation: ObservationImplementation) {
        let model = ConformanceModel()
        let asked = ConformanceSeen()
        func handler() -> @Sendable () -> Void {
            asked.add(1)
            return {}
        }
        track(implementation, recordingRegistry(), { _ = model.ignored }, onChange: handler())
        model.ignored = 1
        #expect(asked.values == [])
    }

    @Test(arguments: ObservationImplementation.allCases)
    func aNestedTrackingsReadsAreTheOuterOnesToo(_ implementation: ObservationImplementation) {
        let model = ConformanceModel()
        let registry = recordingRegistry()
        let fired = ConformanceSeen()
        track(implementation, registry, {
            _ = model.name
            track(implementation, registry, { _ = model.value }, onChange: { fired.add(2) })
        }, onChange: { fired.add(1) })
        model.value = 1
        #expect(fired.values.sorted() == [1, 2])
    }
}

/// Values collected from any thread.
final class ConformanceSeen: Sendable {
    private let storage = Mutex<[Int]>([])
    func add(_ value: Int) { storage.withLock { $0.append(value) } }
    var values: [Int] { storage.withLock { $0 } }
}
