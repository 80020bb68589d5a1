/// What a registration wants to be told, as users know it from key-value observing.
public struct ObservationOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The options' bits, one per option (stable: they are stored in journals).
    public let rawValue: UInt8
    /// Creates options from their raw bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Deliver the current value at once, on registration.
    public static let initial = ObservationOptions(rawValue: 1 << 0)
    /// Deliver a notification before the value changes as well as after.
    public static let prior = ObservationOptions(rawValue: 1 << 1)
    /// Include the old value in each change.
    public static let old = ObservationOptions(rawValue: 1 << 2)
    /// Include the new value in each change.
    public static let new = ObservationOptions(rawValue: 1 << 3)
    /// Skip changes whose old and new values are equal (`Equatable` values only).
    public static let onlyWhenChanged = ObservationOptions(rawValue: 1 << 4)

    static let names: [(ObservationOptions, String)] = [
        (.initial, "initial"), (.prior, "prior"), (.old, "old"), (.new, "new"),
        (.onlyWhenChanged, "onlyWhenChanged"),
    ]

    /// The options as a comma-separated list (`old,new`), as the journal stores them.
    public var description: String {
        Self.names.filter { contains($0.0) }.map(\.1).joined(separator: ",")
    }

    /// Parses the form `description` produces; unknown names are ignored.
    public init(names: String) {
        var options: ObservationOptions = []
        for part in names.split(separator: ",") {
            if let match = Self.names.first(where: { $0.1 == part }) { options.insert(match.0) }
        }
        self = options
    }
}
