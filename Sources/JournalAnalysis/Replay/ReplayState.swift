/// The registry's state rebuilt at one point of a session, and what became of the change
/// at or before it.
package struct ReplayState: Sendable, Equatable {
    /// A registration live at the chosen point.
    package struct LiveEntry: Sendable, Equatable {
        package var registrationID: Int64
        package var owner: String
        package var ownerAlive: Bool
        package var callSite: String
        package var registeredSeq: Int64
        package var options: String
        package var scope: String?
    }

    /// A channel with live registrations.
    package struct ChannelState: Sendable, Equatable {
        package var channelID: Int64
        package var channel: String
        package var policy: String
        package var registrations: [LiveEntry]
    }

    /// A registration that received the change.
    package struct Receiver: Sendable, Equatable {
        package var registrationID: Int64
        package var owner: String
        package var callSite: String
        package var seq: Int64
        package var durationNs: Int64?
    }

    /// A registration that did not receive the change, and why.
    package struct NonReceiver: Sendable, Equatable {
        package var registrationID: Int64
        package var owner: String
        package var ownerAlive: Bool
        package var callSite: String
        package var reason: String
        /// The event that explains it (the skip, removal or replacement), if any.
        package var seq: Int64?
    }

    /// The change at or before the chosen point.
    package struct Change: Sendable, Equatable {
        package var seq: Int64
        package var channel: String
        package var policy: String
        package var old: String?
        package var new: String?
        package var isPrior: Bool
        package var depth: Int
        package var callSite: String?
        package var received: [Receiver]
        package var notReceived: [NonReceiver]
    }

    /// One change of a single-slot channel replayed as multicast.
    package struct WhatIfChange: Sendable, Equatable {
        package var seq: Int64
        package var channel: String
        /// Registrations the single slot actually called, by owner (`Owner#2`, or
        /// `Owner#2 (File.swift:42)` when the owner holds several registrations).
        package var received: [String]
        /// Registrations a multicast channel would have called, labelled the same way.
        package var wouldReceive: [String]
        /// `wouldReceive` minus `received`: who was silently left out.
        package var missed: [String] { wouldReceive.filter { !received.contains($0) } }
    }

    package var sessionID: Int64
    package var at: Int64
    package var timeNs: Int64
    package var channels: [ChannelState]
    package var change: Change?
    /// Set when a what-if replay was asked for.
    package var whatIf: [WhatIfChange]?
}
