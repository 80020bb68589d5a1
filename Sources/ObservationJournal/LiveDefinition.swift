import ObserverCore

/// A live channel or registration the writer's records name: its definition, as the app's
/// thread handed it over, and whether its row is written. Its row is written when an event
/// first names it; a row written before it was forgotten is never written again (`INSERT …
/// ON CONFLICT DO NOTHING`), so only a new row marks it written.
struct LiveDefinition<Info> {
    var info: Info
    var written: Bool
}

typealias LiveChannel = LiveDefinition<ChannelInfo>
typealias LiveRegistration = LiveDefinition<RegistrationInfo>
