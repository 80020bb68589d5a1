import JournalFixtures
import Testing

/// The soak's memory decision on synthetic series: a warm-up that is slow in seconds (a
/// loaded machine) is not growth; memory rising with work, steadily or in steps, is.
@Suite struct MemoryTrendTests {
    static let mib = 1_048_576.0

    static func bytes(_ mebibytes: Double) -> Int { Int((mebibytes * mib).rounded()) }

    /// The failing CI run's shape: 61 samples over 5 s on a loaded 2-core machine; the
    /// threads did little in the first half of the time, so RSS was still ramping (29.8 to
    /// 73.8 MiB) when half the time had passed — but it levelled off once 600k of the
    /// 1.5M events were done, and it stays level, give or take the allocator's 0.2 MiB.
    @Test func slowWarmUpThenPlateauIsFlat() {
        let samples = (0...60).map { i in
            let work = i < 30 ? Double(i) * 10_000 : 300_000 + Double(i - 30) * 40_000
            let ramp = 29.8 + (73.8 - 29.8) * min(work, 600_000) / 600_000
            let jitter = work > 600_000 ? (i % 2 == 0 ? 0.2 : -0.2) : 0
            return MemoryTrend.Sample(work: work, bytes: Self.bytes(ramp + jitter))
        }
        let trend = MemoryTrend(samples)
        #expect(trend.flat)
        #expect(trend.description(unit: "events")
            == "second half: 73.8 MiB → 73.8 MiB (+0.0 MiB, 0.00 MiB per million events; allowed +4.0), 19 samples")
    }

    /// A leak of 2 MiB per million events over 6M events: the second half (3M events)
    /// rises by 5.8 MiB, above the 4 MiB allowed.
    @Test func linearGrowthWithWorkIsNotFlat() {
        let samples = (0..<60).map { i in
            MemoryTrend.Sample(work: Double(i) * 100_000, bytes: Self.bytes(60 + 2 * Double(i) / 10))
        }
        let trend = MemoryTrend(samples)
        #expect(!trend.flat)
        #expect(trend.description(unit: "events")
            == "second half: 66.0 MiB → 71.8 MiB (+5.8 MiB, 2.00 MiB per million events; allowed +4.0), 30 samples")
    }

    /// Half that leak over the same work stays under the tolerance: the limit of what a
    /// run of this length can tell from the allocator's noise (a longer soak catches it).
    @Test func slowerGrowthOverTheSameWorkIsWithinTolerance() {
        let samples = (0..<60).map { i in
            MemoryTrend.Sample(work: Double(i) * 100_000, bytes: Self.bytes(60 + Double(i) / 10))
        }
        let trend = MemoryTrend(samples)
        #expect(trend.flat)
        #expect(trend.description(unit: "events")
            == "second half: 63.0 MiB → 65.9 MiB (+2.9 MiB, 1.00 MiB per million events; allowed +4.0), 30 samples")
    }

    /// The 20-s soak sampled every 0.5 s on an idle machine (seconds: MiB) `1:63 1.5:74 …
    /// 6.5:74 7:76 … 13:76 13.5:78 … 16.5:78 17:81 … 20:81`: steps of 2–3 MiB every ~6 s as
    /// tables of everything ever written doubled. Events at a steady 290k/s.
    @Test func stepGrowthIsNotFlat() {
        let samples = stride(from: 1.0, through: 20.0, by: 0.5).map { seconds in
            let level: Double = seconds < 1.5 ? 63 : seconds < 7 ? 74 : seconds < 13.5 ? 76 : seconds < 17 ? 78 : 81
            return MemoryTrend.Sample(work: seconds * 290_000, bytes: Self.bytes(level))
        }
        let trend = MemoryTrend(samples)
        #expect(!trend.flat)
        #expect(trend.description(unit: "events")
            == "second half: 75.2 MiB → 81.5 MiB (+6.4 MiB, 2.19 MiB per million events; allowed +4.0), 21 samples")
    }

    /// Too few samples in the second half to draw a line: no verdict against the run.
    @Test func tooFewSamplesAreFlat() {
        let samples = [
            MemoryTrend.Sample(work: 0, bytes: Self.bytes(30)), MemoryTrend.Sample(work: 10, bytes: Self.bytes(40)),
            MemoryTrend.Sample(work: 20, bytes: Self.bytes(90)),
        ]
        let trend = MemoryTrend(samples)
        #expect(trend.flat)
        #expect(trend.judged == 2)
        #expect(trend.rise == 0)
    }
}
