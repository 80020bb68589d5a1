/// What a prepared statement holds at one parameter, as far as the code binding it knows.
///
/// Bindings outlive `sqlite3_reset`: a statement run again and again (the journal writer's
/// multi-row `INSERT`) still holds what the last run bound. Its binder keeps one of these
/// per parameter and skips a call that would bind the value already there — most of an
/// event row (session, kind, thread, channel, registration, flags, the NULLs) repeats from
/// one batch of rows to the next, and each bind is a call into SQLite.
///
/// Valid only while nothing else binds, resets with `reset()` (which clears bindings) or
/// re-prepares the statement: use it with a statement from `SQLiteDatabase.prepare`, owned
/// by the binder, never a shared `cached` one.
///
/// A skipped bind still asks the connection's fault plan, as the bind would (debug builds;
/// see `SQLiteFaultPlan`): which binds are skipped depends on the values and on how threads'
/// events interleave, and a harness that lists a clean run's calls and then fails the nth
/// one must find the same nth call in every run. (An injected failure there leaves the
/// statement holding the value, as `bound` says.)
package enum BoundParameter: Equatable, Sendable {
    /// Not known (never bound here, a text, or a bind that failed).
    case unknown
    case null
    case integer(Int64)
}

extension SQLiteStatement {
    /// Binds `value` at `index` unless `bound` says it is already there; `bound` then says it is.
    @inline(__always)
    package func bind(_ value: Int64?, at index: Int32, over bound: inout BoundParameter) throws(SQLiteError) {
        let wanted: BoundParameter = value.map { .integer($0) } ?? .null
        if bound == wanted {
            try checkFault(.bind)
            return
        }
        bound = .unknown
        try bind(value, at: index)
        bound = wanted
    }

    /// Binds `value` at `index`; a NULL only if `bound` does not say it is already there.
    /// A text is always bound (comparing it would cost as much as binding it).
    @inline(__always)
    package func bind(_ value: String?, at index: Int32, over bound: inout BoundParameter) throws(SQLiteError) {
        if value == nil, bound == .null {
            try checkFault(.bind)
            return
        }
        bound = .unknown
        try bind(value, at: index)
        if value == nil { bound = .null }
    }
}
