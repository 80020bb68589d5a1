/// What makes a file a journal: its application id and schema version.
package enum JournalSchema {
    /// `PRAGMA application_id` of every journal: "OJRN".
    package static let applicationID: Int32 = 0x4F4A_524E

    /// The schema version this library writes and reads: its last migration's.
    package static var latestVersion: Int { embeddedMigrations.last?.version ?? 0 }

    /// Versions written only by unreleased builds (between 0.1.0 and schema 7), whose
    /// shapes no reader keeps: refused with a message that says so. A version is never
    /// reused, so a file's `user_version` always names exactly one schema.
    package static let unreleasedVersions = 2...6
}
