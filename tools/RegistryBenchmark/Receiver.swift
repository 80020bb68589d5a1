/// What every delivery does, in all three contenders: add the new value to its receiver's
/// total, so the work cannot be optimised away and is the same everywhere.
final class Receiver: @unchecked Sendable {
    var total = 0
}

/// The subject whose value is observed.
final class Subject {}
