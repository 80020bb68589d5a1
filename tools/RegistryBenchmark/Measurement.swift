/// Timing helpers. The machine is shared and noisy, so each figure is the best of several
/// runs (the run least disturbed by other work), and every comparison is a ratio between
/// figures measured in the same process.
enum Measurement {
    static let clock = ContinuousClock()

    /// Seconds taken by `body`.
    static func seconds(_ body: () -> Void) -> Double {
        let start = clock.now
        body()
        let elapsed = clock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    /// The best rate (operations per second) of `runs` runs of `body`, each doing
    /// `operations` operations.
    static func bestRate(runs: Int = 7, operations: Int, _ body: () -> Void) -> Double {
        var best = 0.0
        for _ in 0..<runs {
            best = max(best, Double(operations) / seconds(body))
        }
        return best
    }

    /// The shortest time of `runs` runs of `body`.
    static func bestTime(runs: Int = 5, _ body: () -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<runs {
            best = min(best, seconds(body))
        }
        return best
    }
}

/// Formats 12_345_678 as "12.35M".
func millions(_ rate: Double) -> String {
    String(format: "%.2fM", rate / 1e6)
}

func ratio(_ value: Double) -> String {
    String(format: "%.2f", value)
}
