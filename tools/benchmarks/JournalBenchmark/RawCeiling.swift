import CRawCeiling
import CSQLite
import Foundation
import ObservationJournal
import ObserverCore

/// (a) The raw ceiling: the rows the recorder writes for a fan-out-1 workload (a `changed`
/// with old and new values, then a `delivered`), inserted into the journal's own `events`
/// table by C code calling the SQLite C API (`raw_ceiling_insert`, compiled with the
/// release build's optimization): the writer's statement, `INSERT … SELECT` of 256 staged
/// rows from the virtual table of CEventBatch (`staged`), or bound parameters, 64 rows per
/// `INSERT … VALUES` (or one), about 10,000 rows per `BEGIN IMMEDIATE` transaction, WAL,
/// `synchronous=NORMAL`, texts bound or read without a copy; no registry, no recorder, no
/// Swift in the loop. The fastest way to put these rows into this table with this SQLite,
/// so "x% of the ceiling" means x% of SQLite's own rate.
///
/// The row shape is not written out here: a short recording writes a `changed` and a
/// `delivered` row, and the ceiling inserts copies of those two rows (every column the
/// table stores, as the recorder filled it), with new `seq`, `time_ns` and value texts. So
/// the reference follows the schema the recorder writes, whatever its version. (The
/// details of `event_details` are written by rare events only, none of these.)
enum RawCeiling {
    static func run(path: String, rows: Int, rowsPerStatement: Int = 1, staged: Bool = false) throws -> Double {
        let sample = try sampleRows(path: path)
        let database = try RawSQLite(path: path)
        try database.execute("PRAGMA synchronous = NORMAL")
        precondition(rows % rowsPerStatement == 0)
        let start = now()
        // The two rows to copy: seq 2 (`changed`) and 3 (`delivered`) of the sample session.
        let status = staged
            ? raw_ceiling_insert_staged(database.handle, sample, 2, rows, Int32(rowsPerStatement))
            : raw_ceiling_insert(database.handle, sample, 2, rows, Int32(rowsPerStatement))
        let elapsed = now() - start
        guard status == SQLITE_OK else {
            throw RawSQLiteError(message: "raw ceiling: \(String(cString: sqlite3_errmsg(database.handle)))")
        }
        return Double(rows) / (Double(elapsed) / 1e9)
    }

    /// Records a few changes at fan-out 1 into a new journal at `path` through the recorder;
    /// returns the session's id.
    static func sampleRows(path: String) throws -> Int64 {
        let recording = try Journal.open(path: path).startSession(label: "raw ceiling sample")
        let subject = Subject()
        let owner = Owner()
        let value = ObservableValue(0, subject: subject, key: "value", registry: recording.registry)
        let token = value.observe(owner: owner) { _, _ in }
        for number in 1...10 { value.value = number }
        recording.close()
        withExtendedLifetime((token, owner, subject)) {}
        return recording.sessionID
    }
}
