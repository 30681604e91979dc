import ASN1TLV

/// DG11, additional personal details (ICAO 9303-10 §4.7.11):
///
/// | tag | element |
/// |---|---|
/// | 5C | tag list |
/// | 5F0E | full name (primary<<secondary, fillers) |
/// | A0 { 02 count, 5F0F … } | other names (also accepted: bare '5F0F' elements) |
/// | 5F10 | personal number |
/// | 5F2B | full date of birth, YYYYMMDD (older documents: 4-byte BCD) |
/// | 5F11 | place of birth (fields separated by '<') |
/// | 5F42 | permanent address (fields separated by '<') |
/// | 5F12 | telephone |
/// | 5F13 | profession |
/// | 5F14 | title |
/// | 5F15 | personal summary |
/// | 5F16 | proof of citizenship (image, ISO/IEC 10918) |
/// | 5F17 | other valid travel document numbers (separated by '<') |
/// | 5F18 | custody information |
///
/// Text is kept as stored (fillers included); `LDSFields` turns it into what a person reads (names,
/// '<'-separated parts, ISO 8601 dates). Personal data: no `description` prints it.
///
/// Bounded: at most `LDSFields.maxEntries` other names, and a declared count outside 1…99 is refused; a
/// declared count that differs from the names present is kept in `otherNamesDeclaredCount` for the caller
/// to flag (documents are seen with both the wrapped and the bare form).
public struct DG11File: Sendable, Hashable {
    public let raw: [UInt8]
    public let tagList: [UInt32]
    public let fullName: String?
    public let otherNames: [String]
    /// The count inside the 'A0' template, when present.
    public let otherNamesDeclaredCount: Int?
    public let personalNumber: String?
    /// YYYYMMDD (BCD converted to digits).
    public let fullDateOfBirth: String?
    public let placeOfBirth: String?
    public let address: String?
    public let telephone: String?
    public let profession: String?
    public let title: String?
    public let personalSummary: String?
    public let proofOfCitizenship: [UInt8]?
    public let otherValidTravelDocumentNumbers: String?
    public let custodyInformation: String?

    /// `fullName` split on '<<' into primary and secondary identifiers, fillers → spaces.
    public var nameComponents: (primary: String, secondary: String)? { fullName.map(MRZ.splitName) }

    public init(bytes: [UInt8]) throws(LDSParseError) {
        let r = LDSReader(file: .dg11)
        raw = bytes
        let root = try r.parseFile(bytes, tag: 0x6B)
        tagList = try root.child(0x5C).map { n throws(LDSParseError) in try COMFile.tagList(n, reader: r) } ?? []
        func text(_ tag: UInt32) throws(LDSParseError) -> String? {
            try root.child(tag).map { n throws(LDSParseError) in try r.text(n) }
        }
        fullName = try text(0x5F0E)
        (otherNamesDeclaredCount, otherNames) = try LDSFields.repeated(0x5F0F, in: root, reader: r, "other names")
        personalNumber = try text(0x5F10)
        fullDateOfBirth = try root.child(0x5F2B).map { n throws(LDSParseError) in try LDSFields.date(n, reader: r) }
        placeOfBirth = try text(0x5F11)
        address = try text(0x5F42)
        telephone = try text(0x5F12)
        profession = try text(0x5F13)
        title = try text(0x5F14)
        personalSummary = try text(0x5F15)
        proofOfCitizenship = root.child(0x5F16)?.valueBytes
        otherValidTravelDocumentNumbers = try text(0x5F17)
        custodyInformation = try text(0x5F18)
    }
}

/// Helpers for the text fields of DG11/DG12/DG16.
public enum LDSFields {
    /// The most entries a repeated element (other names, other persons, persons to notify, displayed images)
    /// may have: a count is one octet in ICAO 9303-10's templates, and 99 is the largest count its examples allow.
    public static let maxEntries = 99

    /// The values of a repeated text element: inside `A0 { 02 count, tag … }` and, as some documents store
    /// them, bare under `root`. Returns the declared count (nil without an 'A0' count) and the values.
    static func repeated(
        _ tag: UInt32, in root: TLVNode, reader r: LDSReader,
        _ what: String
    ) throws(LDSParseError) -> (declared: Int?, values: [String]) {
        var declared: Int?
        var nodes: [TLVNode] = []
        if let group = root.child(0xA0) {
            guard group.isConstructed else {
                throw r.error(.unexpectedTag, group, "'A0' (\(what)) must be constructed")
            }
            if let c = group.child(0x02) { declared = try count(c, reader: r, what) }
            nodes += group.children.filter { $0.tag == tag }
        }
        nodes += root.children.filter { $0.tag == tag }
        guard nodes.count <= maxEntries else {
            throw r.error(.invalidValue, root, "\(nodes.count) \(what) present, at most \(maxEntries) accepted")
        }
        var values: [String] = []
        for n in nodes { values.append(try r.text(n)) }
        return (declared, values)
    }

    /// A count element ('02', one or two octets) in 1…`maxEntries`.
    static func count(_ n: TLVNode, reader r: LDSReader, _ what: String) throws(LDSParseError) -> Int {
        guard !n.isConstructed, (1...2).contains(n.value.count) else {
            throw r.error(.invalidValue, n, "bad number of \(what)")
        }
        let v = n.value.reduce(0) { $0 << 8 | Int($1) }
        guard (1...maxEntries).contains(v) else {
            throw r.error(.invalidValue, n, "number of \(what) \(v) outside 1…\(maxEntries)")
        }
        return v
    }

    /// Splits a field on '<' (the separator of multi-part fields such as address and place of birth),
    /// dropping empty parts.
    public static func split(_ s: String) -> [String] {
        s.split(separator: "<", omittingEmptySubsequences: true).map { String($0) }
    }

    /// A date element: ASCII digits (YYYYMMDD, or YYYYMMDDhhmmss) kept as is; packed BCD (older documents,
    /// e.g. 4 bytes for a date) converted to digits.
    static func date(_ n: TLVNode, reader r: LDSReader) throws(LDSParseError) -> String {
        guard !n.isConstructed else { throw r.error(.unexpectedTag, n, "date element must be primitive") }
        let v = n.value
        if !v.isEmpty, v.allSatisfy({ (0x30...0x39).contains($0) }) { return LDSText.decode(v) }
        if !v.isEmpty, v.allSatisfy({ $0 >> 4 <= 9 && $0 & 0x0F <= 9 }) {
            return v.map { "\($0 >> 4)\($0 & 0x0F)" }.joined()
        }
        // Partially known dates may contain fillers or other characters: keep them as text.
        return LDSText.decode(v)
    }
}
