/// What makes a file a journal: its application id and schema version.
package enum JournalSchema {
    /// `PRAGMA application_id` of every journal: "OJRN".
    package static let applicationID: Int32 = 0x4F4A_524E

    /// The schema version this library writes: the number of migrations it knows.
    package static var latestVersion: Int { embeddedMigrations.count }

    /// The first schema version whose `channels.policy` and `registrations.removal_reason`
    /// hold `JournalDeliveryPolicy` and `JournalRemovalReason` codes (checked by a range);
    /// older journals hold the names (checked by a list).
    package static let integerPoliciesAndReasonsSince = 5
}
