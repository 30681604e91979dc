import Foundation

/// A secret string (an OAuth access token, the step-up `token`, a client secret, a VideoID
/// authorisation). Its `description`, `debugDescription` and reflection never show the value, so
/// string interpolation, `print`, `dump` and error messages cannot leak it; `reveal()` is the one
/// way to the text, used only where the value goes on the wire or into the VideoID launch data.
///
/// It encodes as a plain JSON string, so models round-trip.
public struct SecretString: Hashable, Sendable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable, ExpressibleByStringLiteral
{
    private let value: String

    public init(_ value: String) { self.value = value }
    public init(stringLiteral value: String) { self.value = value }

    public init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(value)
    }

    /// The secret text. Use only to put it on the wire.
    public func reveal() -> String { value }

    public var isEmpty: Bool { value.isEmpty }

    public var description: String { "<redacted \(value.count) chars>" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Removes known secrets from strings before they reach a log, an error or the terminal.
///
/// Each client registers the secrets it handles (client secret, access token, step-up token, the
/// Basic credential); anything that copies text out of a response passes it through `redact(_:)`.
public struct Redactor: Sendable, Hashable {
    public static let mask = "[REDACTED]"
    public private(set) var secrets: Set<String>

    public init(_ secrets: [String] = []) {
        self.secrets = Set(secrets.filter { $0.count >= 4 })
    }

    public init(secrets: [SecretString]) {
        self.init(secrets.map { $0.reveal() })
    }

    /// Adds a secret (values shorter than 4 characters are ignored: masking them would garble text).
    public mutating func add(_ secret: String) {
        if secret.count >= 4 { secrets.insert(secret) }
    }

    public mutating func add(_ secret: SecretString) { add(secret.reveal()) }

    public func adding(_ other: Redactor) -> Redactor {
        var r = self
        r.secrets.formUnion(other.secrets)
        return r
    }

    /// The text with every registered secret replaced by `[REDACTED]` (longest first, so a secret
    /// that contains another is masked whole), and any `Bearer …` / `Basic …` credential masked.
    public func redact(_ text: String) -> String {
        var t = text
        for s in secrets.sorted(by: { $0.count > $1.count }) where t.contains(s) {
            t = t.replacingOccurrences(of: s, with: Self.mask)
        }
        for scheme in ["Bearer ", "Basic ", "bearer ", "basic "] {
            t = Self.maskAfter(scheme, in: t)
        }
        return t
    }

    private static func maskAfter(_ scheme: String, in text: String) -> String {
        guard text.contains(scheme) else { return text }
        var out = ""
        var rest = Substring(text)
        while let r = rest.range(of: scheme) {
            out += rest[..<r.upperBound]
            rest = rest[r.upperBound...]
            let end =
                rest.firstIndex(where: { $0 == " " || $0 == "\"" || $0 == "," || $0 == "\n" || $0 == "\r" })
                ?? rest.endIndex
            if end != rest.startIndex {
                out += mask
                rest = rest[end...]
            }
        }
        out += rest
        return out
    }
}
