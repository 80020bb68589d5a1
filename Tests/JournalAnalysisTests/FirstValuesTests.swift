@testable import JournalAnalysis
import Testing

@Test func firstValuesKeepsTheFirstUpToItsLimitInOrder() {
    var values = FirstValues(limit: 3)
    #expect([5, 7, 9, 11].map { values.append($0) } == [true, true, true, false])
    #expect(values.values == [5, 7, 9])
    #expect(values.count == 3)
    #expect(values[1] == 7)
    #expect(values.contains(9) && !values.contains(11))
}

@Test func firstValuesHoldsAtMostItsCapacityWhateverTheLimitAsked() {
    var values = FirstValues(limit: 50)
    for value in 1...12 { values.append(Int64(value)) }
    #expect(values.values == Array(1...10))
    var none = FirstValues(limit: -1)
    #expect(!none.append(1) && none.values.isEmpty)
}
