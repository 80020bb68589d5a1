import ObserverCore
import Testing

// Ids are never memory addresses: an object allocated where a deallocated one lived is a
// different object and gets a new id.

final class SameSize {
    var payload = 0
}

@Test func anObjectAtAReusedAddressGetsANewId() throws {
    let registry = ObserverRegistry()
    let player = Player()
    let volume = ObservableValue(0, subject: player, key: "volume", registry: registry)
    var tokens: [ObservationToken] = []  // kept: their registrations hold the dead owners weakly
    var idAtAddress: [ObjectIdentifier: UInt64] = [:]
    var reuses = 0
    var attempt = 0
    while reuses < 3 && attempt < 100_000 {
        attempt += 1
        let owner = SameSize()
        let address = ObjectIdentifier(owner)
        let token = volume.observe(owner: owner) { _, _ in }
        let id = token.registration.owner.id
        // The subject is object 1; every owner is new, so ids count up without a gap.
        #expect(id == UInt64(attempt + 1))
        if let earlier = idAtAddress[address] {
            reuses += 1
            #expect(earlier != id)
        }
        idAtAddress[address] = id
        tokens.append(token)
    }
    try #require(reuses == 3, "the allocator never reused an address in \(attempt) attempts")
    // Dead owners are never called, even though a live object sits at their address.
    let alive = SameSize()
    let received = Received()
    tokens.append(volume.observe(owner: alive) { _, _ in received.append("alive") })
    volume.value = 1
    #expect(received.all == ["alive"])
    #expect(registry.statistics.registrations == 1)
}

@Test func aSubjectAtAReusedAddressGetsANewChannel() throws {
    // A channel of a deallocated subject must not be reused by a new subject at its
    // address: its observers would be told about an object they never saw. Any earlier
    // subject's address counts (waiting for one particular address to come back is at the
    // mercy of what other tests allocate meanwhile).
    let registry = ObserverRegistry()
    let screen = Screen("s")
    let received = Received()
    var earlier: [ObjectIdentifier: ChannelInfo] = [:]
    var reuses = 0
    var attempt = 0
    while reuses < 3 && attempt < 100_000 {
        attempt += 1
        let subject = SameSize()
        let address = ObjectIdentifier(subject)
        let value = ObservableValue(0, subject: subject, key: "payload", registry: registry)
        if let dead = earlier[address] {
            reuses += 1
            #expect(value.channelInfo.id != dead.id)
            #expect(value.channelInfo.subject.id != dead.subject.id)
            value.value = 1  // nobody observes this new subject
        } else {
            screen.tokens.append(value.observe(owner: screen) { owner, _ in received.append(owner.name) })
        }
        earlier[address] = value.channelInfo
    }
    try #require(reuses == 3, "the allocator never reused a subject's address in \(attempt) attempts")
    #expect(received.all.isEmpty)
}
