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
    // address: its observers would be told about an object they never saw.
    let registry = ObserverRegistry()
    let screen = Screen("s")
    let received = Received()
    var first: (address: ObjectIdentifier, channel: ChannelInfo)?
    var reused = false
    var attempt = 0
    while !reused && attempt < 100_000 {
        attempt += 1
        let subject = SameSize()
        let value = ObservableValue(0, subject: subject, key: "payload", registry: registry)
        if let first {
            if ObjectIdentifier(subject) == first.address {
                reused = true
                #expect(value.channelInfo.id != first.channel.id)
                #expect(value.channelInfo.subject.id != first.channel.subject.id)
                value.value = 1
            }
        } else {
            first = (ObjectIdentifier(subject), value.channelInfo)
            screen.tokens.append(value.observe(owner: screen) { owner, _ in received.append(owner.name) })
        }
    }
    try #require(reused, "the allocator never reused the first subject's address in \(attempt) attempts")
    #expect(received.all.isEmpty)
}
