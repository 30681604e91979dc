/// The identity-proofing provider of a ReuseID step-up (docs/architecture.md §8.1 item 1).
///
/// Accepted spellings: `signicatvideoid` and `videoid` (VideoID; the 2025 release note uses the
/// short form) and `readid` (ReadID). Matching ignores ASCII case; the spelling that was read is
/// kept in `rawValue` so documents round-trip unchanged.
public struct Provider: Hashable, Sendable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        case videoID = "videoid"
        case readID = "readid"
    }

    /// The spelling as read or written.
    public let rawValue: String
    public let kind: Kind

    public static let signicatVideoID = Provider(validated: "signicatvideoid", .videoID)
    public static let videoID = Provider(validated: "videoid", .videoID)
    public static let readID = Provider(validated: "readid", .readID)

    /// The spellings accepted on input.
    public static let acceptedSpellings = ["signicatvideoid", "videoid", "readid"]

    private init(validated raw: String, _ kind: Kind) {
        rawValue = raw
        self.kind = kind
    }

    /// Nil for an unknown provider.
    public init?(rawValue: String) {
        switch rawValue.lowercased() {
        case "signicatvideoid", "videoid": self.init(validated: rawValue, .videoID)
        case "readid": self.init(validated: rawValue, .readID)
        default: return nil
        }
    }

    /// Parses a provider, or throws `unknownProvider` naming `field`.
    public static func parse(_ raw: String, field: String = "provider", step: StepUpError.Step) throws -> Provider {
        guard let p = Provider(rawValue: raw) else {
            throw StepUpError(
                .unknownProvider, step: step, field: field,
                expected: "one of " + acceptedSpellings.joined(separator: ", "),
                reason: "unknown identity-proofing provider \"\(raw.prefix(64))\"")
        }
        return p
    }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        let field = decoder.codingPath.map(\.stringValue).filter { $0 != "signicatOperation" }.joined(separator: ".")
        self = try Provider.parse(raw, field: field.isEmpty ? "provider" : field, step: .decodeOperation)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    public var description: String { rawValue }

    /// The same provider in the lower-case spelling ReuseID documents (`ReadID` → `readid`), for what is sent.
    public var normalized: Provider { Provider(validated: rawValue.lowercased(), kind) }

    /// Same provider kind, whatever the spelling.
    public func isSameProvider(as other: Provider) -> Bool { kind == other.kind }
}
