/// The machine-readable zone layouts (ICAO 9303-4 TD3, -5 TD1, -6 TD2, -7 MRV-A/MRV-B).
public enum MRZFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// Size-1 card: 3 lines of 30 characters (9303-5 §4.2).
    case td1 = "TD1"
    /// Size-2 card: 2 lines of 36 characters (9303-6 §4.2).
    case td2 = "TD2"
    /// Passport booklet: 2 lines of 44 characters (9303-4 §4.2).
    case td3 = "TD3"
    /// Full-size visa: 2 lines of 44 characters (9303-7 §4.2, format A).
    case mrvA = "MRV-A"
    /// Smaller visa: 2 lines of 36 characters (9303-7 §4.2, format B).
    case mrvB = "MRV-B"

    public var lineCount: Int { self == .td1 ? 3 : 2 }
    public var lineLength: Int {
        switch self {
        case .td1: return 30
        case .td2, .mrvB: return 36
        case .td3, .mrvA: return 44
        }
    }
    public var isVisa: Bool { self == .mrvA || self == .mrvB }
}

/// The sex field (9303-4 §4.2.2: F, M, or < / X for unspecified).
public enum MRZSex: String, Sendable, Hashable, Codable {
    case male = "M", female = "F", unspecified = "<"

    init(character c: Character) {
        switch c {
        case "M": self = .male
        case "F": self = .female
        default: self = .unspecified
        }
    }
}

/// The result of one check digit of an MRZ (ICAO 9303-3 §4.9).
public struct MRZCheck: Sendable, Hashable, CustomStringConvertible {
    public enum Field: String, Sendable, Hashable, CaseIterable {
        case documentNumber, dateOfBirth, dateOfExpiry, optionalData, composite
    }
    public let field: Field
    /// The check digit as printed.
    public let printed: Character
    /// The check digit computed over the field (nil only when the field holds characters outside the MRZ set).
    public let computed: Int?
    /// Whether the printed digit equals the computed one. For the optional-data check a filler stands for 0
    /// (9303-4 §4.2.2, note on an unused personal number).
    public let isValid: Bool

    init(_ field: Field, input: String, printed: Character, fillerMeansZero: Bool = false) {
        self.field = field
        self.printed = printed
        computed = MRZCheckDigit.compute(input)
        let ascii = printed.asciiValue
        let printedValue: Int? =
            printed == "<" && fillerMeansZero
            ? 0
            : ascii.flatMap { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) ? Int($0 - UInt8(ascii: "0")) : nil }
        isValid = computed != nil && printedValue == computed
    }

    /// Names the field and the outcome only (no MRZ characters).
    public var description: String { "\(field.rawValue): \(isValid ? "valid" : "invalid")" }
}
