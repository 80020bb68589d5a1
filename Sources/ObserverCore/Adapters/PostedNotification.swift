/// A named notification as its observers receive it.
public struct PostedNotification: Sendable {
    /// The notification's name.
    public var name: String
    /// The posting object, if one was given.
    public var sender: ObjectRef?
    /// What was posted with it.
    public var payload: (any Sendable)?

    /// Creates a notification value.
    public init(name: String, sender: ObjectRef?, payload: (any Sendable)?) {
        self.name = name
        self.sender = sender
        self.payload = payload
    }
}
