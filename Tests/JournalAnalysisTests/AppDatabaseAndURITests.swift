import CSQLite
import Foundation
import JournalAnalysis
import JournalFixtures
import JournalStore
import ObservationJournal
import ObserverCore
import SystemShim
import Testing
import TestSupport

// Issue 34 §2, §10: the app's own SQLite, and paths SQLite would misread.

/// `GuardedFileOpen` was process-wide and turned every path SQLite opened into a
/// `String`: the app's own database at a path that is not UTF-8 (Latin-1 `café.db`) got
/// "disk I/O error" or a new, empty file at another name. The app's own SQLite, called
/// directly in a process where a journal records, now opens exactly its own bytes.
@Test func theAppsOwnDatabaseAtANonUTF8PathIsUntouchedByTheRecorder() throws {
    let scratch = try ScratchDirectory("app-database")
    let journal = try Journal.open(path: scratch.path())
    let recording = try journal.startSession(label: "app")
    defer { recording.close() }
    // The recorder's connections are open, so the guard is installed.
    #expect(GuardedFileOpen.installed)
    let directory = Array(scratch.url.path.utf8)
    let name: [UInt8] = directory + Array("/caf".utf8) + [0xE9] + Array(".db".utf8)
    let path = name.map { CChar(bitPattern: $0) } + [0]
    var database: OpaquePointer?
    #expect(sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK)
    #expect(sqlite3_exec(database, "PRAGMA journal_mode=WAL; CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('saved')", nil, nil, nil) == SQLITE_OK)
    #expect(sqlite3_close_v2(database) == SQLITE_OK)
    database = nil
    #expect(sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
    var statement: OpaquePointer?
    #expect(sqlite3_prepare_v2(database, "SELECT x FROM t", -1, &statement, nil) == SQLITE_OK)
    #expect(sqlite3_step(statement) == SQLITE_ROW)
    #expect(String(cString: sqlite3_column_text(statement, 0)) == "saved")
    sqlite3_finalize(statement)
    sqlite3_close_v2(database)
    // The file is at the very bytes asked for, and nothing at a mangled name.
    var names: [[UInt8]] = []
    if let stream = opendir(scratch.url.path) {
        while let entry = readdir(stream) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if bytes != Array(".".utf8), bytes != Array("..".utf8) { names.append(bytes) }
        }
        closedir(stream)
    }
    let cafe = Array("caf".utf8) + [0xE9] + Array(".db".utf8)
    let others = names.filter { !$0.starts(with: Array("journal.sqlite".utf8)) }
    #expect(others.contains(cafe))
    #expect(others.allSatisfy { $0.starts(with: cafe) }, "\(others)")
    // The journal's own connections are still guarded: a FIFO is refused, not waited on.
    let fifo = scratch.path("fifo.sqlite")
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect(throws: SQLiteError.self) { try SQLiteDatabase(path: fifo, mode: .readOnly).scalarInt("PRAGMA user_version") }
    // ...while the app's own open of the same name is made as asked (non-blocking here).
    let descriptor = GuardedFileOpen.openAsAsked(fifo, O_RDONLY | O_NONBLOCK, 0)
    #expect(descriptor >= 0)
    close(descriptor)
}

/// A path starting with `//` became a `file://` URI's authority ("invalid uri
/// authority"); a path with characters beyond ASCII opens the file of those bytes.
@Test func pathsSQLiteWouldMisreadAsURIsOpenTheirFile() throws {
    let scratch = try ScratchDirectory("uri-paths")
    let plain = scratch.path("café ü?#%.sqlite")
    do {
        let fixture = try JournalFixture(path: plain)
        _ = try fixture.session(label: "uri")
        try fixture.finish()
    }
    #expect(FileManager.default.fileExists(atPath: plain))
    let doubled = "/" + plain
    #expect(doubled.hasPrefix("//"))
    #expect(try JournalReader(path: doubled).sessions().map(\.label) == ["uri"])
    let journal = try Journal.open(path: doubled)
    let recording = try journal.startSession(label: "again")
    recording.close()
    #expect(try JournalReader(path: plain).sessions().map(\.label) == ["uri", "again"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted() == ["café ü?#%.sqlite"])
}
