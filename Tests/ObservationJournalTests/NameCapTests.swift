import Dispatch
import Foundation
@testable import ObservationJournal
import ObserverCore
import Testing
import TestSupport

/// A generic type of many nested parameters, named by `String(reflecting:)`.
final class LongNamedSubject {}

/// The recorder writes no name longer than 1,024 UTF-8 bytes (docs/NAMES.md): a key,
/// a file, a function, a queue label, a scope name or a session label longer than that is
/// stored as its prefix, its length and its hash, as readers would show it; shorter ones are
/// stored as they are.
@Suite struct NameCapTests {
    @Test func everyNameIsStoredShortenedPastTheLimit() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path()
        let label = String(repeating: "L", count: 5000)
        let recording = try Journal.open(path: path).startSession(label: label)
        let registry = recording.registry
        let subject = Player()
        let owner = Player()
        let value = ObservableValue(0, subject: subject, key: String(repeating: "K", count: 3_000_000) + "a", registry: registry)
        let other = ObservableValue(0, subject: subject, key: String(repeating: "K", count: 3_000_000) + "b", registry: registry)
        let queue = DispatchQueue(label: String(repeating: "Q", count: 5000))
        let scope = registry.beginScope(String(repeating: "S", count: 5000))
        let token = value.observe(
            owner: owner, queue: queue, scope: scope, file: "App/" + String(repeating: "F", count: 1_000_000) + ".swift", line: 7,
            function: "short()"
        ) { _, _ in }
        let plain = other.observe(owner: owner, file: "App/Short.swift", line: 8, function: "f()") { _, _ in }
        value.value = 1
        other.value = 2
        queue.sync {}
        token.cancel()
        plain.cancel()
        scope.end()
        recording.close()
        #expect(try rows(path, "SELECT max(length(CAST(value AS BLOB))) FROM strings") == ["1024"])
        let k = String(repeating: "K", count: 984)
        let stored = Set(try rows(path, "SELECT value FROM strings"))
        for name in [
            k + "…[3000001 bytes, fnv ec6d9a2ec3adb9cc]", k + "…[3000001 bytes, fnv ec6d9d2ec3adbee5]",
            String(repeating: "Q", count: 987) + "…[5000 bytes, fnv 5c212a7afd99a06d]",
            String(repeating: "S", count: 987) + "…[5000 bytes, fnv ef65153dd2e9178d]",
            "App/" + String(repeating: "F", count: 980) + "…[1000010 bytes, fnv 870aef629ad54428]",
            "App/Short.swift", "short()", "f()",
        ] {
            #expect(stored.contains(name), "not stored: \(name.prefix(20))…\(name.suffix(40))")
        }
        #expect(try rows(path, "SELECT label FROM sessions") == [String(repeating: "L", count: 987) + "…[5000 bytes, fnv 6e962b6fa8eba3a5]"])
    }
}
