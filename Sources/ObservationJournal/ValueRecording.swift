import ObserverCore

/// How the values of changes are stored: as their text description, truncated, under a
/// redaction policy, because journals may hold user data.
public struct ValueRecording: Sendable, Equatable {
    /// How much of a value is stored.
    public enum Redaction: Sendable, Equatable {
        /// The value's description (`String(describing:)`), truncated to `maxLength`.
        case full
        /// Only the value's type, in angle brackets: `<String>`.
        case typeOnly
        /// Nothing: the column is NULL.
        case none
    }

    /// The longest text stored, in characters; a longer description keeps its first
    /// `maxLength - 1` characters followed by `…`. At least 1.
    public var maxLength: Int
    /// The redaction for keys not listed in `redactionByKey`.
    public var redaction: Redaction
    /// Redaction per channel key (a property or notification name), overriding `redaction`.
    public var redactionByKey: [String: Redaction]

    /// A policy: by default full descriptions of at most 200 characters for every key.
    /// - Parameters:
    ///   - maxLength: the longest text stored, in characters (at least 1).
    ///   - redaction: the redaction for keys not in `redactionByKey`.
    ///   - redactionByKey: redaction per channel key.
    public init(maxLength: Int = 200, redaction: Redaction = .full, redactionByKey: [String: Redaction] = [:]) {
        self.maxLength = maxLength
        self.redaction = redaction
        self.redactionByKey = redactionByKey
    }

    /// The text stored for `value` on a channel with `key`; `nil` for no value or
    /// redaction `.none`.
    func text(for value: EventValue?, key: String?) -> String? {
        text(for: value, redaction: redaction(forKey: key))
    }

    /// The redaction of a channel with `key`.
    func redaction(forKey key: String?) -> Redaction {
        key.flatMap { redactionByKey[$0] } ?? redaction
    }

    /// The text stored for a change's value (`plain`, else `boxed()`) under `redaction`: what
    /// `text(for:key:)` stores, without boxing an `Int`, `Bool` or `Double` kept as bits, and
    /// an `Int` or `Bool` kept as its number when no truncation can apply to its text.
    func text(for plain: PlainValue, boxed: () -> EventValue?, redaction: Redaction) -> ValueText? {
        guard redaction == .full else { return text(for: boxed(), redaction: redaction).map { .text($0) } }
        switch plain {
        case .absent: return nil
        // The longest `Int` text, `-9223372036854775808`, has 20 characters; `false` 5.
        case .int(let value) where maxLength >= 20: return .integer(Int64(value))
        case .bool(let value) where maxLength >= 5: return .bool(value)
        case .double(let value): return .text(truncated(value.description))
        case .int, .bool, .other: return text(for: boxed(), redaction: .full).map { .text($0) }
        }
    }

    /// The text stored for `value` under `redaction`.
    func text(for value: EventValue?, redaction: Redaction) -> String? {
        guard let value else { return nil }
        switch redaction {
        case .none:
            return nil
        case .typeOnly:
            return truncated("<\(type(of: value.value))>")
        case .full:
            return truncated(Self.describing(value.value))
        }
    }

    /// `String(describing:)` of a value (`EventValue.description`), without its dynamic casts
    /// for the common types (for an `Int`, `String(describing:)` asks the runtime whether it
    /// is text-output-streamable, then custom-string-convertible, for every change the writer
    /// thread writes). The text must stay exactly `String(describing:)`'s.
    static func describing(_ value: any Sendable) -> String {
        func known<Value>(_ value: Value) -> String? {
            // Comparing the type is a pointer comparison; the load is then of the right type.
            func load<Known>(_: Known.Type) -> Known {
                ErasedPayload.lending(value) { $0.load(as: Known.self) }
            }
            if Value.self == Int.self { return String(load(Int.self)) }
            if Value.self == String.self { return load(String.self) }
            if Value.self == Bool.self { return load(Bool.self) ? "true" : "false" }
            if Value.self == Double.self { return load(Double.self).description }
            return nil
        }
        return known(value) ?? String(describing: value)
    }

    /// `text` cut to `maxLength` characters, the last of which is then `…`.
    func truncated(_ text: String) -> String {
        let limit = max(1, maxLength)
        // utf8.count bounds the character count from above and is O(1) for native strings.
        guard text.utf8.count > limit else { return text }
        var end = text.startIndex
        var kept = 0
        while kept < limit, end < text.endIndex {
            end = text.index(after: end)
            kept += 1
        }
        if end == text.endIndex { return text }
        return String(text[..<text.index(before: end)]) + "…"
    }
}
