import JournalStore
import ObserverCore

/// Interning: strings, call sites, and the rows of objects, channels, scopes and
/// registrations, each written the first time an event names it so event rows hold ids.
extension SessionWriter {
    // MARK: - First sight of objects, channels, scopes, registrations

    func note(_ object: ObjectRef, seq: Int64) throws(SQLiteError) {
        guard object.id != 0, objects.insert(object.id).inserted else { return }
        try insertObject.bind(sessionID, at: 1)
        try insertObject.bind(Int64(object.id), at: 2)
        try insertObject.bind(try intern(object.typeName), at: 3)
        try insertObject.bind(seq, at: 4)
        try insertObject.run()
    }

    func note(_ channel: ChannelInfo, seq: Int64) throws(SQLiteError) {
        guard channels.insert(channel.id).inserted else { return }
        try note(channel.subject, seq: seq)
        try insertChannel.bind(sessionID, at: 1)
        try insertChannel.bind(Int64(channel.id), at: 2)
        try insertChannel.bind(Int64(channel.subject.id), at: 3)
        try insertChannel.bind(try intern(channel.key), at: 4)
        try insertChannel.bind(Self.journal(channel.policy).name, at: 5)
        try insertChannel.bind(seq, at: 6)
        try insertChannel.run()
    }

    func note(_ scope: ScopeInfo, beganAt seq: Int64?) throws(SQLiteError) {
        guard scopes.insert(scope.id).inserted else { return }
        try insertScope.bind(sessionID, at: 1)
        try insertScope.bind(Int64(scope.id), at: 2)
        try insertScope.bind(try intern(scope.name), at: 3)
        try insertScope.bind(seq, at: 4)
        try insertScope.run()
    }

    func note(_ registration: RegistrationInfo, seq: Int64) throws(SQLiteError) {
        guard registrations.insert(registration.id).inserted else { return }
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
    }

    func remove(_ registration: UInt64, reason: JournalRemovalReason, seq: Int64) throws(SQLiteError) {
        try markRemoved.bind(seq, at: 1)
        try markRemoved.bind(reason.name, at: 2)
        try markRemoved.bind(sessionID, at: 3)
        try markRemoved.bind(Int64(registration), at: 4)
        try markRemoved.run()
    }

    func deallocated(_ object: UInt64, seq: Int64) throws(SQLiteError) {
        try markDeallocated.bind(seq, at: 1)
        try markDeallocated.bind(sessionID, at: 2)
        try markDeallocated.bind(Int64(object), at: 3)
        try markDeallocated.run()
    }

    // MARK: - Interning

    /// The id of `text` in `strings`, inserting it the first time.
    func intern(_ text: String) throws(SQLiteError) -> Int64 {
        if let id = strings[text] { return id }
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
        strings[text] = id
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
