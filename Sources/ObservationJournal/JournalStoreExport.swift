// The recorder's public API throws `JournalError`, which lives in JournalStore with the
// rest of what readers share. Re-exported so that an app importing ObservationJournal
// names it as before the storage moved out; JournalStore has nothing else public.
@_exported public import JournalStore
