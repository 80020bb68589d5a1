/// How a channel treats more than one registration.
public enum DeliveryPolicy: String, Sendable, Hashable, CaseIterable {
    /// Every live registration is called, in registration order (the default).
    case multicast
    /// A new registration replaces the previous one, like a plain callback property or a
    /// delegate. Exists so apps with that legacy shape can be recorded and diagnosed.
    case singleSlot
}
