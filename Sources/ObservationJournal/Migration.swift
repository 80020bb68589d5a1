/// One step of the journal schema: the SQL of `Migrations/NNNN_name.sql`, compiled into
/// the library by the `MigrationsPlugin` build tool.
struct Migration: Sendable, Equatable {
    /// The schema version this migration brings a journal to (NNNN).
    let version: Int
    /// The name after the number (`initial`).
    let name: String
    /// The file's SQL, run as one script.
    let sql: String
}
