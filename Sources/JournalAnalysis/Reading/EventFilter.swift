/// Which events of a session to read: a condition of the query that reads them. Names
/// are resolved to the ids of the strings that read as them, and reach SQL as bound
/// parameters.
package struct EventFilter: Sendable, Equatable {
    /// First and last sequence number, inclusive.
    package var from: Int64 = 1
    package var to: Int64 = .max
    /// Only these kinds; empty means all.
    package var kinds: [EventKind] = []
    /// Only events on channels with this key.
    package var channelKey: String?
    /// Only events whose owner has this type name.
    package var ownerType: String?

    package init(
        from: Int64 = 1, to: Int64 = .max, kinds: [EventKind] = [], channelKey: String? = nil, ownerType: String? = nil
    ) {
        self.from = from
        self.to = to
        self.kinds = kinds
        self.channelKey = channelKey
        self.ownerType = ownerType
    }
}
