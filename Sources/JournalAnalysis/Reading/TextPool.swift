/// Distinct short texts by number, up to `limit` of them: registration rows name the same
/// few option lists, queue labels and removal reasons over and over, and a number is 4
/// bytes where each row's own copy of a text over 15 bytes is a heap allocation.
struct TextPool {
    /// The number of `nil`.
    static let none = UInt32.max
    /// The number of a text the pool had no room for.
    static let unpooled = UInt32.max - 1
    /// How many distinct texts the pool holds at most, and how long each may be (UTF-8
    /// bytes): a hostile journal may make every text distinct or long, and the pool, which
    /// keeps what it was given, must not grow with them.
    static let limit = 1024
    static let longest = 64

    private var texts: [String] = []
    private var numbers: [String: UInt32] = [:]

    /// How many texts the pool holds.
    var count: Int { texts.count }

    /// The number of `text`, adding it if there is room; `nil` when there is none or the
    /// text is longer than `longest`.
    mutating func intern(_ text: String?) -> UInt32? {
        guard let text else { return Self.none }
        if let number = numbers[text] { return number }
        guard texts.count < Self.limit, text.utf8.count <= Self.longest else { return nil }
        let number = UInt32(texts.count)
        texts.append(text)
        numbers[text] = number
        return number
    }

    /// The text with `number` (`nil` for `none` or an unknown number).
    subscript(number: UInt32) -> String? {
        number < texts.count ? texts[Int(number)] : nil
    }
}
