import Foundation
import ObservationJournal
@testable import ObsReplayCLI
import Testing

/// A session whose recorded start and end are ten thousand years apart: more nanoseconds
/// than Int64 holds. `sessions` used to trap converting the duration; it now falls back to
/// the time of the last event, as for a session without an end.
@Test func sessionsWithDatesMillenniaApartShowTheEventTime() throws {
    let directory = try temporaryDirectory()
    let path = try demoJournal(in: directory)
    let database = try SQLiteDatabase(path: path, mode: .readWrite)
    try database.execute("UPDATE sessions SET started_at = '0001-01-01T00:00:00Z', ended_at = '9999-12-31T23:59:59Z' WHERE id = 1")
    let result = try obsreplay(["sessions", path, "--json"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("\"id\":1,\"label\":\"three screens\""))
    #expect(result.stdout.contains("\"duration_ns\":10000000,"))
}
