/// The median and range of one figure over rounds: how every benchmark tool reports.
package struct Spread {
    package var median: Double
    package var min: Double
    package var max: Double

    package init(_ values: [Double]) {
        precondition(!values.isEmpty, "no rounds measured")
        let sorted = values.sorted()
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }

    /// "8.60 (7.91–9.42)" with `format` applied to each number.
    package func text(_ format: (Double) -> String) -> String {
        "\(format(median)) (\(format(min))–\(format(max)))"
    }
}

/// Per-round ratios of two series measured in the same rounds.
package func ratios(_ numerators: [Double], _ denominators: [Double]) -> [Double] {
    zip(numerators, denominators).map { $0 / $1 }
}
