import JournalStore
import Testing

// Messages suggest commands with the journal's path in them; pasted as shown, they must
// name that file whatever its name holds.

@Test(arguments: [
    ("journal.sqlite", "journal.sqlite"),
    ("/tmp/run-2/app_1.sqlite", "/tmp/run-2/app_1.sqlite"),
    ("my journal.sqlite", "'my journal.sqlite'"),
    ("it's.sqlite", "'it'\\''s.sqlite'"),
    ("$HOME/*.sqlite", "'$HOME/*.sqlite'"),
    ("-", "-"),
    ("", "''"),
    ("café.sqlite", "'café.sqlite'"),
])
func aWordIsQuotedOnlyWhenTheShellWouldChangeIt(word: String, quoted: String) {
    #expect(shellQuoted(word) == quoted)
}

@Test func theMigrateSuggestionNamesAPathWithASpaceAsOneWord() {
    let error = JournalError.olderSchema(path: "my journals/app.sqlite", found: 1, supported: 7)
    #expect(error.description == "my journals/app.sqlite: journal schema 1 is older than 7; run: obsreplay migrate 'my journals/app.sqlite'")
}
