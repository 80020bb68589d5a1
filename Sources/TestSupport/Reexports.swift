// The seeded generator the fixtures use, for tests that draw their own operations.
@_exported public import struct JournalFixtures.SplitMix64
