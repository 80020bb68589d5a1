/// An object as events name it: a registry-assigned id and its dynamic type's name.
///
/// Ids are assigned the first time the registry sees an object and are never reused
/// within one registry, even when a later object is allocated at the address of a
/// deallocated one. Memory addresses are never recorded.
public struct ObjectRef: Sendable, Hashable, CustomStringConvertible {
    /// The registry's id for the object, starting at 1; 0 stands for "any object".
    public var id: UInt64
    /// The unqualified name of the object's dynamic type (`Player`).
    public var typeName: String

    /// Creates a reference from its parts.
    public init(id: UInt64, typeName: String) {
        self.id = id
        self.typeName = typeName
    }

    /// The wildcard subject of named notifications that any sender may post.
    public static let any = ObjectRef(id: 0, typeName: "*")

    /// `Player#1`, or `*` for the wildcard.
    public var description: String { id == 0 ? "*" : "\(typeName)#\(id)" }
}
