public import ASN1TLV

/// The LDS Security Object, the signed content of EF.SOD (ICAO 9303-10 §4.6.2.2):
///
/// ```
/// LDSSecurityObject ::= SEQUENCE {
///   version                LDSSecurityObjectVersion,     -- v0(0), v1(1)
///   hashAlgorithm          DigestAlgorithmIdentifier,
///   dataGroupHashValues    SEQUENCE SIZE (2..ub-DataGroups) OF DataGroupHash,
///   ldsVersionInfo         LDSVersionInfo OPTIONAL }     -- if present, version MUST be v1
/// DataGroupHash ::= SEQUENCE { dataGroupNumber DataGroupNumber, dataGroupHashValue OCTET STRING }
/// DataGroupNumber ::= INTEGER { dataGroup1(1) .. dataGroup16(16) }
/// LDSVersionInfo ::= SEQUENCE { ldsVersion PRINTABLE STRING, unicodeVersion PRINTABLE STRING }
/// ```
public struct LDSSecurityObject: Sendable, Hashable {
    /// `id-icao-mrtd-security-ldsSecurityObject` (2.23.136.1.1.1), the eContentType of EF.SOD.
    public static let contentType = ASN1ObjectIdentifier(arcs: [2, 23, 136, 1, 1, 1])

    /// The DER bytes of the LDSSecurityObject exactly as they were found (the eContent).
    public let raw: [UInt8]
    /// 0 (v0) or 1 (v1, with LDS version information).
    public let version: Int
    /// The `algorithm` OID of the DigestAlgorithmIdentifier.
    public let hashAlgorithm: ASN1ObjectIdentifier
    /// The `parameters` of the DigestAlgorithmIdentifier, encoded as found (usually absent or NULL).
    public let hashAlgorithmParameters: [UInt8]?
    /// Data group number → hash value, as listed.
    public let dataGroupHashes: [Int: [UInt8]]
    /// The data groups in the order they are listed.
    public let dataGroupNumbers: [Int]
    /// LDSVersionInfo.ldsVersion, e.g. "0108" (v1 only).
    public let ldsVersion: String?
    /// LDSVersionInfo.unicodeVersion, e.g. "040000" (v1 only).
    public let unicodeVersion: String?

    /// The common name of the hash algorithm ("SHA-256"), nil when the OID is not a known digest.
    public var hashAlgorithmName: String? { DigestAlgorithm.name(of: hashAlgorithm) }

    /// The hash listed for a data group.
    public func hash(of file: LDSFile) -> [UInt8]? { file.dataGroupNumber.flatMap { dataGroupHashes[$0] } }

    /// Parses the DER encoding of an LDSSecurityObject.
    public init(bytes: [UInt8]) throws(LDSParseError) {
        try self.init(slice: bytes[...], reader: LDSReader(file: .sod))
    }

    init(slice: ArraySlice<UInt8>, reader r: LDSReader) throws(LDSParseError) {
        raw = Array(slice)
        let seq = try r.parse(slice)
        try r.expect(seq, 0x30, "LDSSecurityObject")
        let v = try r.integer(try r.child(seq, at: 0, "version"), "version")
        guard v == 0 || v == 1 else { throw r.error(.unsupported, seq.children[0], "LDSSecurityObject version \(v)") }
        version = v
        let alg = try r.child(seq, at: 1, "hashAlgorithm")
        try r.expect(alg, 0x30, "DigestAlgorithmIdentifier")
        hashAlgorithm = try r.oid(try r.child(alg, at: 0, "algorithm"), "algorithm")
        hashAlgorithmParameters = alg.children.count > 1 ? alg.children[1].encodedBytes : nil
        let list = try r.child(seq, at: 2, "dataGroupHashValues")
        try r.expect(list, 0x30, "dataGroupHashValues")
        var hashes: [Int: [UInt8]] = [:]
        var order: [Int] = []
        for item in list.children {
            try r.expect(item, 0x30, "DataGroupHash")
            let numberNode = try r.child(item, at: 0, "dataGroupNumber")
            let n = try r.integer(numberNode, "dataGroupNumber")
            guard (1...16).contains(n) else {
                throw r.error(.invalidValue, numberNode, "data group number \(n) outside 1–16")
            }
            guard hashes[n] == nil else { throw r.error(.invalidValue, numberNode, "data group \(n) listed twice") }
            let hashNode = try r.child(item, at: 1, "dataGroupHashValue")
            try r.expect(hashNode, 0x04, "dataGroupHashValue")
            hashes[n] = hashNode.valueBytes
            order.append(n)
        }
        guard !order.isEmpty else { throw r.error(.missingElement, list, "no data group hashes") }
        dataGroupHashes = hashes
        dataGroupNumbers = order
        if seq.children.count > 3 {
            let info = seq.children[3]
            try r.expect(info, 0x30, "LDSVersionInfo")
            guard v == 1 else { throw r.error(.invalidValue, info, "LDSVersionInfo present with version v0") }
            ldsVersion = try r.text(try r.child(info, at: 0, "ldsVersion"))
            unicodeVersion = try r.text(try r.child(info, at: 1, "unicodeVersion"))
        } else {
            ldsVersion = nil
            unicodeVersion = nil
        }
    }
}

/// Digest algorithm identifiers used in EF.SOD and SignerInfos (RFC 5754, NIST CSOR; SHA-1: OIW).
public enum DigestAlgorithm {
    public static let sha1 = ASN1ObjectIdentifier(arcs: [1, 3, 14, 3, 2, 26])
    public static let sha224 = ASN1ObjectIdentifier(arcs: [2, 16, 840, 1, 101, 3, 4, 2, 4])
    public static let sha256 = ASN1ObjectIdentifier(arcs: [2, 16, 840, 1, 101, 3, 4, 2, 1])
    public static let sha384 = ASN1ObjectIdentifier(arcs: [2, 16, 840, 1, 101, 3, 4, 2, 2])
    public static let sha512 = ASN1ObjectIdentifier(arcs: [2, 16, 840, 1, 101, 3, 4, 2, 3])

    /// "SHA-1", "SHA-224", "SHA-256", "SHA-384", "SHA-512", or nil.
    public static func name(of oid: ASN1ObjectIdentifier) -> String? {
        switch oid {
        case sha1: return "SHA-1"
        case sha224: return "SHA-224"
        case sha256: return "SHA-256"
        case sha384: return "SHA-384"
        case sha512: return "SHA-512"
        default: return nil
        }
    }

    /// Digest size in bytes for the known algorithms.
    public static func outputSize(of oid: ASN1ObjectIdentifier) -> Int? {
        switch oid {
        case sha1: return 20
        case sha224: return 28
        case sha256: return 32
        case sha384: return 48
        case sha512: return 64
        default: return nil
        }
    }
}
