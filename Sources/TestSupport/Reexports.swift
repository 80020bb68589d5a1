// The seeded generator the fixtures use, for tests that draw their own operations.
@_exported public import struct JournalFixtures.SplitMix64
// A lock ThreadSanitizer sees, for state the tests' threads share.
@_exported public import class JournalFixtures.Locked
