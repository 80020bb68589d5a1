/// SplitMix64: a tiny seeded generator, so fixtures, benchmarks and tests do the same
/// operations every run (tests get it through TestSupport). Not for anything that needs real randomness.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    package var state: UInt64

    package init(state: UInt64) {
        self.state = state
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` (modulo bias is irrelevant for test workloads).
    package mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// True `percent` times in a hundred.
    package mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}
