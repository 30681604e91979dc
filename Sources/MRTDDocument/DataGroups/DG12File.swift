import ASN1TLV

/// DG12, additional document details (ICAO 9303-10 §4.7.12):
///
/// | tag | element |
/// |---|---|
/// | 5C | tag list |
/// | 5F19 | issuing authority |
/// | 5F26 | date of issue, YYYYMMDD (older documents: 4-byte BCD) |
/// | A0 { 02 count, 5F1A … } | name(s) of other person(s) (bare '5F1A' also accepted) |
/// | 5F1B | endorsements and observations |
/// | 5F1C | tax or exit requirements |
/// | 5F1D | image of the front of the document |
/// | 5F1E | image of the rear of the document |
/// | 5F55 | date and time of personalisation, YYYYMMDDhhmmss (or BCD) |
/// | 5F56 | serial number of the personalisation system |
///
/// Bounded as DG11: at most `LDSFields.maxEntries` other persons, a declared count in 1…99.
public struct DG12File: Sendable, Hashable {
    public let raw: [UInt8]
    public let tagList: [UInt32]
    public let issuingAuthority: String?
    public let dateOfIssue: String?
    public let otherPersons: [String]
    /// The count inside the 'A0' template, when present.
    public let otherPersonsDeclaredCount: Int?
    public let endorsementsAndObservations: String?
    public let taxOrExitRequirements: String?
    public let imageOfFront: [UInt8]?
    public let imageOfRear: [UInt8]?
    public let personalizationTime: String?
    public let personalizationDeviceSerialNumber: String?

    public init(bytes: [UInt8]) throws(LDSParseError) {
        let r = LDSReader(file: .dg12)
        raw = bytes
        let root = try r.parseFile(bytes, tag: 0x6C)
        tagList = try root.child(0x5C).map { n throws(LDSParseError) in try COMFile.tagList(n, reader: r) } ?? []
        func text(_ tag: UInt32) throws(LDSParseError) -> String? {
            try root.child(tag).map { n throws(LDSParseError) in try r.text(n) }
        }
        issuingAuthority = try text(0x5F19)
        dateOfIssue = try root.child(0x5F26).map { n throws(LDSParseError) in try LDSFields.date(n, reader: r) }
        (otherPersonsDeclaredCount, otherPersons) = try LDSFields.repeated(0x5F1A, in: root, reader: r, "other persons")
        endorsementsAndObservations = try text(0x5F1B)
        taxOrExitRequirements = try text(0x5F1C)
        imageOfFront = root.child(0x5F1D)?.valueBytes
        imageOfRear = root.child(0x5F1E)?.valueBytes
        personalizationTime = try root.child(0x5F55).map { n throws(LDSParseError) in try LDSFields.date(n, reader: r) }
        personalizationDeviceSerialNumber = try text(0x5F56)
    }
}
