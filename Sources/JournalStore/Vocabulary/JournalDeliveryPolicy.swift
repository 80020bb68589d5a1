/// How a channel delivers changes (`channels.policy`).
package enum JournalDeliveryPolicy: Int, JournalEnumeration {
    /// Every registration is called.
    case multicast
    /// One registration at a time; a new one replaces the old.
    case singleSlot

    package static let names = caseNames()
    package static let byName = caseNamesToValues()
}
