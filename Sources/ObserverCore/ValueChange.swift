/// One change of an observed value, as a callback receives it.
public struct ValueChange<Value: Sendable>: Sendable {
    /// The value before the change; `nil` unless the registration asked for `.old`
    /// (and for initial deliveries).
    public var old: Value?
    /// The value after the change; `nil` unless the registration asked for `.new`
    /// (or `.initial`, for the initial delivery).
    public var new: Value?
    /// Whether this is the notification sent before the change (`.prior`); `new` then
    /// holds the value about to be set.
    public var isPrior: Bool
    /// Whether this is the delivery of the current value on registration (`.initial`).
    public var isInitial: Bool

    /// Creates a change.
    public init(old: Value?, new: Value?, isPrior: Bool = false, isInitial: Bool = false) {
        self.old = old
        self.new = new
        self.isPrior = isPrior
        self.isInitial = isInitial
    }

    /// The change with only the fields `options` asked for.
    @inlinable
    func filtered(by options: ObservationOptions) -> ValueChange {
        ValueChange(
            old: options.contains(.old) ? old : nil,
            new: options.contains(.new) || isInitial ? new : nil,
            isPrior: isPrior, isInitial: isInitial
        )
    }
}

extension ValueChange: Equatable where Value: Equatable {}
