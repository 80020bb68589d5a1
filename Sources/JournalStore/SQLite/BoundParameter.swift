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
        if bound == wanted { return }
        bound = .unknown
        try bind(value, at: index)
        bound = wanted
    }

    /// Binds `value` at `index`; a NULL only if `bound` does not say it is already there.
    /// A text is always bound (comparing it would cost as much as binding it).
    @inline(__always)
    package func bind(_ value: String?, at index: Int32, over bound: inout BoundParameter) throws(SQLiteError) {
        if value == nil, bound == .null { return }
        bound = .unknown
        try bind(value, at: index)
        if value == nil { bound = .null }
    }
}
