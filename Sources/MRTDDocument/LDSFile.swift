/// The elementary files of the LDS1 eMRTD application and the master file (ICAO 9303-10 §4.6, table of
/// file identifiers, short EF identifiers and tags).
public enum LDSFile: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case cardAccess = "CardAccess"
    case cardSecurity = "CardSecurity"
    case atrInfo = "ATRInfo"
    case com = "COM"
    case sod = "SOD"
    case dg1 = "DG1", dg2 = "DG2", dg3 = "DG3", dg4 = "DG4", dg5 = "DG5", dg6 = "DG6", dg7 = "DG7", dg8 = "DG8"
    case dg9 = "DG9", dg10 = "DG10", dg11 = "DG11", dg12 = "DG12", dg13 = "DG13", dg14 = "DG14", dg15 = "DG15", dg16 =
        "DG16"

    /// The data group number 1–16, nil for other files.
    public var dataGroupNumber: Int? {
        switch self {
        case .cardAccess, .cardSecurity, .atrInfo, .com, .sod: return nil
        default: return Int(rawValue.dropFirst(2))
        }
    }

    /// A file by the name a person types (the command line's `--files`, the service's `files`): its name in any
    /// case, `EF.` optional (`dg1`, `EF.SOD`, `CardAccess`); nil for any other text.
    public init?(name: some StringProtocol) {
        let upper = name.uppercased()
        let bare = upper.hasPrefix("EF.") ? String(upper.dropFirst(3)) : upper
        guard let file = LDSFile.allCases.first(where: { $0.rawValue.uppercased() == bare }) else { return nil }
        self = file
    }

    public init?(dataGroup n: Int) {
        guard (1...16).contains(n) else { return nil }
        self.init(rawValue: "DG\(n)")
    }

    /// Whether the file lives in the master file (read before selecting the eMRTD application).
    public var isInMasterFile: Bool { self == .cardAccess || self == .cardSecurity || self == .atrInfo }

    /// File identifier.
    public var fid: UInt16 {
        switch self {
        case .cardAccess: return 0x011C
        case .cardSecurity: return 0x011D
        case .atrInfo: return 0x2F01
        case .com: return 0x011E
        case .sod: return 0x011D
        default: return 0x0100 + UInt16(dataGroupNumber!)
        }
    }

    /// Short EF identifier.
    public var sfi: UInt8 {
        switch self {
        case .cardAccess: return 0x1C
        case .cardSecurity: return 0x1D
        case .atrInfo: return 0x01
        case .com: return 0x1E
        case .sod: return 0x1D
        default: return UInt8(dataGroupNumber!)
        }
    }

    /// The outer tag of the file's content (nil where the file is a bare ASN.1 SET / SEQUENCE).
    public var tag: UInt32? {
        switch self {
        case .cardAccess, .cardSecurity, .atrInfo: return nil
        case .com: return 0x60
        case .sod: return 0x77
        case .dg1: return 0x61
        case .dg2: return 0x75
        case .dg3: return 0x63
        case .dg4: return 0x76
        case .dg5: return 0x65
        case .dg6: return 0x66
        case .dg7: return 0x67
        case .dg8: return 0x68
        case .dg9: return 0x69
        case .dg10: return 0x6A
        case .dg11: return 0x6B
        case .dg12: return 0x6C
        case .dg13: return 0x6D
        case .dg14: return 0x6E
        case .dg15: return 0x6F
        case .dg16: return 0x70
        }
    }

    /// The file whose outer tag is `tag` (as listed in EF.COM's tag list).
    public init?(tag: UInt32) {
        guard let f = LDSFile.allCases.first(where: { $0.tag == tag && !$0.isInMasterFile }) else { return nil }
        self = f
    }

    /// The name used in evidence bundles: `EF.SOD.bin`, `DG1.bin`, `EF.CardAccess.bin`.
    public var bundleFileName: String {
        dataGroupNumber == nil ? "EF.\(rawValue).bin" : "\(rawValue).bin"
    }

    private var order: Int { LDSFile.allCases.firstIndex(of: self)! }
    public static func < (a: LDSFile, b: LDSFile) -> Bool { a.order < b.order }
}
