@testable import ObserverCore
import Testing

// A change's values reach a record sink as plain bits when their type allows (no boxing on
// the app's thread) and are boxed only when read; what is read back must be exactly what
// an `EventValue` of the value would say.

private struct Point: Sendable, Equatable {
    var x: Double
    var y: Float
}

private final class Handle: Sendable {}

@Test func plainValuesOfAtMostSixteenBytesAreKeptAsBitsAndReadBackExactly() {
    let ints = ChangeValues(old: 4, new: -5)
    #expect(ints.isInline)
    #expect(ints.old?.description == "4" && ints.new?.description == "-5")
    let doubles = ChangeValues(old: 0.25, new: Double?.none)
    #expect(doubles.old?.description == "0.25" && doubles.new == nil)
    let points = ChangeValues(old: Point(x: 1, y: 2.5), new: Point(x: -3, y: 0))
    #expect(points.isInline)
    #expect(points.old?.value as? Point == Point(x: 1, y: 2.5))
    #expect(points.new?.value as? Point == Point(x: -3, y: 0))
    let flags = ChangeValues(old: Bool?.none, new: true)
    #expect(flags.old == nil && flags.new?.description == "true")
}

@Test func valuesWithReferencesOrOverSixteenBytesAreBoxed() {
    let strings = ChangeValues(old: "a", new: "b")
    #expect(!strings.isInline)
    #expect(strings.old?.description == "a" && strings.new?.description == "b")
    let handle = Handle()
    #expect(!ChangeValues(old: nil, new: handle).isInline)
    // An optional (Int, Int) is 17 bytes.
    let pairs = ChangeValues(old: (1, 2), new: nil)
    #expect(!pairs.isInline)
    #expect(pairs.old?.description == "(1, 2)" && pairs.new == nil)
}
