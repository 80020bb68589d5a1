import JournalStore
import ObserverCore

/// Interning: strings, call sites, and the rows of objects, channels, scopes and
/// registrations, each written the first time an event names it so event rows hold ids.
extension SessionWriter {
    // MARK: - First sight of objects, channels, scopes, registrations
    //
    // Only live ones are kept (see `SessionWriter`). A note of one not kept inserts its row
    // with ON CONFLICT DO NOTHING: a row written before it was forgotten stays as first
    // written (first_seq, definition), and the strings the note interns are those that row
    // already names. One is kept only when its row is new (`database.changes`), so a late
    // event naming one already ended does not bring it back.

    /// Writes `object`'s row unless a live registration or channel already names it (it
    /// has one then); kept only once one does (`retain`).
    func note(_ object: ObjectRef, seq: Int64) throws(SQLiteError) {
        guard object.id != 0, objects[object.id] == nil else { return }
        try insertObject.bind(sessionID, at: 1)
        try insertObject.bind(Int64(object.id), at: 2)
        try insertObject.bind(try intern(object.typeName), at: 3)
        try insertObject.bind(seq, at: 4)
        try insertObject.run()
    }

    /// One more live registration or channel names `object`, whose row is written.
    func retain(_ object: UInt64) {
        guard object != 0 else { return }
        objects[object, default: 0] += 1
    }

    /// One live registration or channel fewer names `object`.
    func release(_ object: UInt64) {
        guard let count = objects[object] else { return }
        objects[object] = count > 1 ? count - 1 : nil
    }

    func note(_ channel: ChannelInfo, seq: Int64) throws(SQLiteError) {
        guard channels[channel.id]?.written != true else { return }
        try note(channel.subject, seq: seq)
        try insertChannel.bind(sessionID, at: 1)
        try insertChannel.bind(Int64(channel.id), at: 2)
        try insertChannel.bind(Int64(channel.subject.id), at: 3)
        try insertChannel.bind(try intern(channel.key), at: 4)
        // A code (schema 5): the writer writes only the latest schema (`Journal.open`).
        try insertChannel.bind(Self.journal(channel.policy).code, at: 5)
        try insertChannel.bind(seq, at: 6)
        try insertChannel.run()
        if database.changes > 0 {
            channels[channel.id] = LiveChannel(info: channel, written: true)
            retain(channel.subject.id)
        }
    }

    /// Takes the channels and registrations a batch defines, before its records are
    /// written: the app's thread wrote only ids and numbers (`EventRecord`), and each
    /// channel and registration once, in the batch that first names it.
    func define(_ pending: PendingEvents) {
        for info in pending.channels {
            channels[info.id] = LiveChannel(info: info, written: channels[info.id]?.written ?? false)
        }
        for info in pending.registrations {
            registrations[info.id] = LiveRegistration(info: info, written: registrations[info.id]?.written ?? false)
        }
    }

    /// Forgets channels that were deallocated (`PendingEvents.endedChannels`).
    func forgetChannels(_ ids: [UInt64]) {
        if !ids.isEmpty { lastChannel = 0 }
        for id in ids {
            if let ended = channels.removeValue(forKey: id), ended.written { release(ended.info.subject.id) }
        }
    }

    func note(_ scope: ScopeInfo, beganAt seq: Int64?) throws(SQLiteError) {
        guard !scopes.contains(scope.id) else { return }
        try insertScope.bind(sessionID, at: 1)
        try insertScope.bind(Int64(scope.id), at: 2)
        try insertScope.bind(try intern(scope.name), at: 3)
        try insertScope.bind(seq, at: 4)
        try insertScope.run()
        if database.changes > 0 { scopes.insert(scope.id) }
    }

    func note(_ registration: RegistrationInfo, seq: Int64) throws(SQLiteError) {
        guard registrations[registration.id]?.written != true else { return }
        try note(registration.owner, seq: seq)
        if let sender = registration.sender { try note(sender, seq: seq) }
        if let scope = registration.scope { try note(scope, beganAt: nil) }
        let statement = insertRegistration
        try statement.bind(sessionID, at: 1)
        try statement.bind(Int64(registration.id), at: 2)
        try statement.bind(Int64(registration.channelID), at: 3)
        try statement.bind(Int64(registration.owner.id), at: 4)
        try statement.bind(try id(of: registration.callSite), at: 5)
        try statement.bind(registration.options.description, at: 6)
        try statement.bind(try registration.queueLabel.map { (label) throws(SQLiteError) in try intern(label) }, at: 7)
        try statement.bind(registration.expectsMainThread, at: 8)
        try statement.bind(registration.sender.map { Int64($0.id) }, at: 9)
        try statement.bind(registration.scope.map { Int64($0.id) }, at: 10)
        try statement.bind(seq, at: 11)
        try statement.run()
        guard database.changes > 0 else { return }
        registrations[registration.id] = LiveRegistration(info: registration, written: true)
        retain(registration.owner.id)
        if let sender = registration.sender { retain(sender.id) }
    }

    func remove(_ registration: UInt64, reason: JournalRemovalReason, seq: Int64) throws(SQLiteError) {
        try markRemoved.bind(seq, at: 1)
        try markRemoved.bind(reason.code, at: 2)
        try markRemoved.bind(sessionID, at: 3)
        try markRemoved.bind(Int64(registration), at: 4)
        try markRemoved.run()
        // Its removal is written: later events name it by id only.
        if registration == lastRegistration { lastRegistration = 0 }
        if let ended = registrations.removeValue(forKey: registration), ended.written {
            release(ended.info.owner.id)
            if let sender = ended.info.sender { release(sender.id) }
        }
    }

    func deallocated(_ object: UInt64, seq: Int64) throws(SQLiteError) {
        try markDeallocated.bind(seq, at: 1)
        try markDeallocated.bind(sessionID, at: 2)
        try markDeallocated.bind(Int64(object), at: 3)
        try markDeallocated.run()
    }

    // MARK: - Interning

    /// The id of `text` in `strings`, inserting it the first time, shortened to
    /// `JournalName.maxBytes` (every `strings` row is a name: a type, key, file, function,
    /// queue label or scope name, which output repeats for each event naming it).
    func intern(_ original: String) throws(SQLiteError) -> Int64 {
        if let id = strings[original] { return id }
        let text = JournalName.capped(original)
        try selectString.bind(text, at: 1)
        let found = try selectString.step() ? selectString.int(0) : nil
        selectString.reset()
        let id: Int64
        if let found {
            id = found
        } else {
            try insertString.bind(text, at: 1)
            try insertString.run()
            id = database.lastInsertRowID
        }
        strings[original] = id
        return id
    }

    /// The id of `callSite` in `call_sites`, inserting it the first time.
    func id(of callSite: CallSite) throws(SQLiteError) -> Int64 {
        if let id = callSites[callSite] { return id }
        let file = try intern(callSite.file)
        let function = try intern(callSite.function)
        try selectCallSite.bind(file, at: 1)
        try selectCallSite.bind(Int64(callSite.line), at: 2)
        try selectCallSite.bind(function, at: 3)
        let found = try selectCallSite.step() ? selectCallSite.int(0) : nil
        selectCallSite.reset()
        let id: Int64
        if let found {
            id = found
        } else {
            try insertCallSite.bind(file, at: 1)
            try insertCallSite.bind(Int64(callSite.line), at: 2)
            try insertCallSite.bind(function, at: 3)
            try insertCallSite.run()
            id = database.lastInsertRowID
        }
        callSites[callSite] = id
        return id
    }
}
