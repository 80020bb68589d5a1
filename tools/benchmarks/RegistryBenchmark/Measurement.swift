/// Timing helpers. The machine is shared and noisy, so each figure is the best of several
/// runs (the run least disturbed by other work), contenders are interleaved, and every
/// comparison is a ratio between figures measured in the same process.
enum Measurement {
    static let clock = ContinuousClock()

    /// Seconds taken by `body`.
    static func seconds(_ body: () -> Void) -> Double {
        let start = clock.now
        body()
        let elapsed = clock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
}

/// Formats 12_345_678 as "12.35M".
func millions(_ rate: Double) -> String {
    String(format: "%.2fM", rate / 1e6)
}

func ratio(_ value: Double) -> String {
    String(format: "%.2f", value)
}
