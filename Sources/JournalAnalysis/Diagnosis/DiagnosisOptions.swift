/// Settings of a diagnosis.
package struct DiagnosisOptions: Sendable, Equatable {
    /// A delivery longer than this is a slow callback (default 16 ms, one frame at 60 Hz).
    package var slowCallbackBudgetNs: Int64 = 16_000_000

    package init(slowCallbackBudgetNs: Int64 = 16_000_000) {
        self.slowCallbackBudgetNs = slowCallbackBudgetNs
    }
}
