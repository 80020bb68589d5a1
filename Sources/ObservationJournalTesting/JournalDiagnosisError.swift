/// Why a journal could not be diagnosed: one line a person can act on (no such file, not a
/// journal, no such session, an unusable configuration or baseline, …).
public struct JournalDiagnosisError: Error, CustomStringConvertible, Equatable {
    /// The reason, naming the file.
    public var description: String
}
