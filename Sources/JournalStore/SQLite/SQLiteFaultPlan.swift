import CSQLite
import Synchronization

/// Makes chosen SQLite calls fail, so tests reach every error path (disk full, I/O error,
/// busy, out of memory) without a full disk.
///
/// A plan is attached to a connection when it is opened. Before each call that can fail,
/// the connection asks the plan; a matching rule makes the call fail with its code
/// instead of running it. Only debug builds consult plans: in release builds the checks
/// are compiled out and a plan has no effect.
package final class SQLiteFaultPlan: Sendable {
    /// The kinds of SQLite calls a rule can target.
    package enum Site: String, Sendable, CaseIterable {
        /// `sqlite3_open_v2`.
        case open
        /// `sqlite3_exec` (one or more statements run as text).
        case exec
        /// `sqlite3_prepare_v3`.
        case prepare
        /// `sqlite3_bind_*`.
        case bind
        /// `sqlite3_step`.
        case step
    }

    /// One failure to inject.
    package struct Rule: Sendable {
        /// Only calls at this site count; `nil` counts every call.
        package var site: Site?
        /// Only calls whose SQL contains this text count (open has no SQL); `nil`: any.
        package var sqlContains: String?
        /// The matching call that fails: 1 is the first.
        package var nth: Int
        /// The result code it fails with (`SQLITE_FULL`, `SQLITE_IOERR`, …).
        package var code: Int32
        /// Whether every later matching call fails too (a disk that stays full).
        package var persists: Bool

        /// A rule making the `nth` matching call fail with `code`.
        package init(site: Site? = nil, sqlContains: String? = nil, nth: Int, code: Int32, persists: Bool = false) {
            self.site = site
            self.sqlContains = sqlContains
            self.nth = nth
            self.code = code
            self.persists = persists
        }

        func matches(_ site: Site, sql: String?) -> Bool {
            if let wanted = self.site, wanted != site { return false }
            if let text = sqlContains {
                guard let sql, sql.contains(text) else { return false }
            }
            return true
        }
    }

    /// One call a plan was asked about: its site and SQL (`nil` for open).
    package struct Call: Sendable, Hashable {
        package var site: Site
        package var sql: String?
    }

    private struct State {
        var rules: [Rule]
        var counts: [Int]
        var injected = 0
        /// Every call asked about, in order, when tracing.
        var calls: [Call]?
    }

    private let state: Mutex<State>

    /// A plan with the given rules, each counting its own matching calls.
    /// - Parameter tracing: also keep every call asked about (`calls`), so a harness can
    ///   list the calls a code path makes and then fail each of them in turn.
    package init(_ rules: [Rule], tracing: Bool = false) {
        state = Mutex(State(rules: rules, counts: Array(repeating: 0, count: rules.count), calls: tracing ? [] : nil))
    }

    /// A plan making the `nth` call at `site` (or any site) fail with `code`.
    package convenience init(failing nth: Int, at site: Site? = nil, sqlContains: String? = nil, with code: Int32, persists: Bool = false) {
        self.init([Rule(site: site, sqlContains: sqlContains, nth: nth, code: code, persists: persists)])
    }

    /// How many calls the plan has made fail so far.
    package var injectedCount: Int { state.withLock { $0.injected } }

    /// The calls asked about so far, in order (empty unless the plan traces).
    package var calls: [Call] { state.withLock { $0.calls ?? [] } }

    /// The code the call at `site` running `sql` must fail with, or `nil` to run it.
    func failure(at site: Site, sql: String?) -> Int32? {
        state.withLock { state in
            state.calls?.append(Call(site: site, sql: sql))
            var result: Int32?
            for index in state.rules.indices where state.rules[index].matches(site, sql: sql) {
                state.counts[index] += 1
                let rule = state.rules[index]
                let hit = rule.persists ? state.counts[index] >= rule.nth : state.counts[index] == rule.nth
                if hit && result == nil { result = rule.code }
            }
            if result != nil { state.injected += 1 }
            return result
        }
    }

    /// The error an injected failure raises: SQLite's own message for the code.
    static func error(code: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errstr(code)), sql: sql)
    }
}
