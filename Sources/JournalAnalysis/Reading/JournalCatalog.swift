import JournalStore

/// The names a session's events refer to by id: objects, channels, call sites, scopes.
///
/// Call sites are loaded once per session (their number follows the code's, not the
/// events'); objects, channels and scopes, which a long session creates continually (a
/// subject and its channels per screen visit), are read by id on demand into a bounded
/// cache (`CatalogTable`), so the catalog's size does not follow the session's history. Registrations are not kept here (see
/// `LiveRegistry`). Not thread-safe: it reads through its `JournalReader`.
package struct JournalCatalog {
    package struct Object: Sendable, Equatable {
        package var type: String
        package var firstSeq: Int64
        package var deallocSeq: Int64?
    }

    package struct Channel: Sendable, Equatable {
        package var subjectID: Int64
        package var key: String
        /// As stored, kept for output even when this version does not know it.
        package var policy: String
        package var firstSeq: Int64
        package var isSingleSlot: Bool { JournalDeliveryPolicy.byName[policy] == .singleSlot }
    }

    package struct CallSite: Sendable, Equatable {
        package let file: String
        package let line: Int64
        package let function: String
        /// `File.swift:42`: the file's last path component and the line. Made once, with
        /// the site: findings name their call sites many times over.
        package let short: String

        init(file: String, line: Int64, function: String) {
            self.file = file
            self.line = line
            self.function = function
            let name = file.split(separator: "/").last.map(String.init) ?? file
            short = "\(name):\(line)"
        }
    }

    package struct Scope: Sendable, Equatable {
        package var name: String
        package var beganSeq: Int64?
        package var endedSeq: Int64?
    }

    package var sessionID: Int64
    package var objects: CatalogTable<Object>
    package var channels: CatalogTable<Channel>
    package var callSites: [Int64: CallSite] = [:]
    package var scopes: CatalogTable<Scope>

    /// An empty catalog (a session with no rows).
    package init(sessionID: Int64) {
        self.init(
            sessionID: sessionID, objects: CatalogTable(load: nil), channels: CatalogTable(load: nil), scopes: CatalogTable(load: nil)
        )
    }

    init(sessionID: Int64, objects: CatalogTable<Object>, channels: CatalogTable<Channel>, scopes: CatalogTable<Scope>) {
        self.sessionID = sessionID
        self.objects = objects
        self.channels = channels
        self.scopes = scopes
    }

    /// The first failed read of an object, channel or scope, if any (a lookup answers `nil`
    /// then).
    package var failure: AnalysisError? { objects.failure ?? channels.failure ?? scopes.failure }

    // MARK: - Names as people read them

    /// `Player#1`, `*` for id 0, `?#7` for an id the journal does not name.
    package func objectName(_ id: Int64?) -> String? {
        guard let id else { return nil }
        if id == 0 { return "*" }
        return Self.objectName(type: objects[id]?.type, id: id)
    }

    /// `Player#1`, or `?#1` when the journal does not name the object or its type: the
    /// one spelling of an object's name, for readers that look the type up themselves.
    static func objectName(type: String?, id: Int64) -> String {
        guard let type else { return "?#\(id)" }
        return "\(type)#\(id)"
    }

    /// The type name of an object, if known.
    package func objectType(_ id: Int64?) -> String? {
        guard let id else { return nil }
        return objects[id]?.type
    }

    /// `Player#1.isPlaying`, `*.name` for notifications, `channel#9` when unknown.
    ///
    /// Built once per channel and shared: callers ask for it per event, and a key may be
    /// megabytes long (a journal from elsewhere): building it per event made `report` hold
    /// a copy per change (1.6 GB for 200 changes of an 8 MB key).
    package func channelName(_ id: Int64?) -> String? {
        guard let id else { return nil }
        guard let channel = channels[id] else { return id == 0 ? nil : "channel#\(id)" }
        if let known = channelNames.names[id], known.channel == channel { return known.name }
        let subject = channel.subjectID == 0 ? "*" : (objectName(channel.subjectID) ?? "?")
        let name = "\(subject).\(channel.key)"
        // Most sessions have a few hundred channels, but one that makes a subject per round
        // (a screen's model per visit) has one channel per round, each named once or twice:
        // at 65,536 names the cache held 8.7 MB of names at 1.9M events of the soak, the
        // largest part of its peak. A name not cached is built again, the same text.
        if channelNames.names.count >= Self.cachedChannelNames { channelNames.names.removeAll(keepingCapacity: true) }
        channelNames.names[id] = (channel, name)
        return name
    }

    /// How many channel names are kept built, and channels read (a generation of
    /// `channels`): the channels a session is busy with at once, not every channel it ever
    /// had.
    static let cachedChannelNames = 1_024

    /// The names `channelName` built, by channel id, with the channel each was built from.
    private let channelNames = ChannelNames()

    private final class ChannelNames {
        var names: [Int64: (channel: Channel, name: String)] = [:]
    }

    /// `File.swift:42`.
    package func callSiteName(_ id: Int64?) -> String? {
        guard let id else { return nil }
        return callSites[id]?.short ?? "site#\(id)"
    }

    /// Whether the object was seen deallocated at or before `seq`.
    package func isDeallocated(_ id: Int64, at seq: Int64) -> Bool {
        guard let deallocSeq = objects[id]?.deallocSeq else { return false }
        return deallocSeq <= seq
    }
}
