package import Testing

// Tags for choosing tests from the command line (README, "Testing"):
//   swift test --skip tag:slow            the quick every-change run
//   swift test --filter tag:childProcess  only the tests that run other programs

extension Tag {
    /// Takes seconds, not milliseconds: stress, crash and fault harnesses, whole-corpus runs.
    @Tag package static var slow: Self
    /// Runs another program (a built tool, `obsreplay`, `python3`, `sqlite3`, `swift`).
    @Tag package static var childProcess: Self
}
