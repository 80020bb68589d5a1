import Foundation
package import Testing

// Choosing tests from the command line (README, "Running the tests"):
//   SKIP_SLOW_TESTS=1 swift test          every test but the `.slow` ones
//   swift test --skip tag:slow            the same, where Swift Testing reads `tag:` filters
//   swift test --filter tag:childProcess  only the tests that run other programs (same proviso)

extension Tag {
    /// Takes seconds, not milliseconds: stress, crash, fault and mutation harnesses,
    /// whole-corpus runs. Their long forms run from tools/scripts/reliability.sh.
    @Tag package static var slow: Self
    /// Runs another program (a built tool, `obsreplay`, `python3`, `sqlite3`, `swift`).
    @Tag package static var childProcess: Self
}

extension Trait where Self == ConditionTrait {
    /// Skips a `.slow` test or suite when `SKIP_SLOW_TESTS` is set: the toolchain's
    /// `swift test --skip` matches test names only, not tags.
    package static var skippedWhenQuick: Self {
        .disabled(if: ProcessInfo.processInfo.environment["SKIP_SLOW_TESTS"] != nil, "slow: SKIP_SLOW_TESTS is set")
    }
}
