/// Gives objects ids that are stable for their lifetime and never reused.
///
/// Keyed by `ObjectIdentifier` (an address), but each slot also holds the object weakly:
/// when the slot's object is gone, an object now found at the same address is a new
/// object and gets a new id. Not thread-safe: used under the registry's lock.
struct ObjectIdentityTable {
    final class Slot {
        weak var object: AnyObject?
        let ref: ObjectRef
        init(object: AnyObject, ref: ObjectRef) {
            self.object = object
            self.ref = ref
        }
    }

    private var slots: [ObjectIdentifier: Slot] = [:]
    private var nextID: UInt64 = 1
    /// Type names by type: `String(describing:)` of a type goes through runtime casts and
    /// reflection: made once per type, not for every registration with a new owner.
    private var typeNames: [ObjectIdentifier: String] = [:]

    /// The object's reference, assigning a new id if the object is new.
    mutating func ref(for object: AnyObject) -> ObjectRef {
        let key = ObjectIdentifier(object)
        if let slot = slots[key] {
            if slot.object === object { return slot.ref }
            // An object running its deinit can no longer be referenced weakly, so its own
            // slot reads as gone. Its memory cannot have been reused while it still runs,
            // so the slot is its own: removal from `deinit` (the seeds' removal in dealloc)
            // must name the real owner, not a new one. (Only an object never seen while
            // alive, at the address of one never swept, would be taken for that one.)
            if slot.object == nil && Self.isDeiniting(object) { return slot.ref }
        }
        let type: any AnyObject.Type = type(of: object)
        let typeName: String
        if let known = typeNames[ObjectIdentifier(type)] {
            typeName = known
        } else {
            typeName = String(describing: type)
            typeNames[ObjectIdentifier(type)] = typeName
        }
        let ref = ObjectRef(id: nextID, typeName: typeName)
        nextID += 1
        slots[key] = Slot(object: object, ref: ref)
        return ref
    }

    /// Whether `object` has begun its deinit: a weak reference to it then reads `nil`.
    private static func isDeiniting(_ object: AnyObject) -> Bool {
        weak let probe = object
        return probe == nil
    }

    /// Forgets slots whose objects are gone; the living ones read are put in `kept`, for
    /// the caller to release after the registry's lock.
    mutating func prune(keeping kept: inout KeptAlive) {
        // Removing in place keeps the table's storage: a sweep must not rebuild it.
        var gone: [ObjectIdentifier] = []
        for (key, slot) in slots where kept.isGone(slot.object) { gone.append(key) }
        for key in gone { slots[key] = nil }
    }

    var count: Int { slots.count }
}
