import ASN1TLV

/// How MRTDCrypto reads the key structures it parses itself (SubjectPublicKeyInfo, ECParameters, PKCS #8,
/// ECDSA-Sig-Value): through ASN1TLV, the package's one BER/DER layer, with the BER oddities documents carry
/// where harmless tolerated (non-minimal length forms, non-minimal INTEGERs) and indefinite lengths refused.
/// The tree is bounded by `CryptoLimits.maxKeyStructureDepth` and `maxKeyStructureElements`, far below the
/// general `TLVLimits`, because these structures have a fixed shape; going beyond them is `limitExceeded`.
enum KeyStructure {
    static let rules = TLVParser.Rules(
        distinguished: false, allowIndefiniteLength: false, maxDepth: CryptoLimits.maxKeyStructureDepth,
        maxElements: CryptoLimits.maxKeyStructureElements)

    /// Parses exactly one element spanning `bytes`.
    static func parse(_ bytes: [UInt8], _ function: String) throws(CryptoError) -> TLVNode {
        try read(function) { () throws(TLVError) in try TLVParser.parse(bytes, rules: rules) }
    }

    /// Runs an ASN1TLV read, turning its error into the `invalidInput` `CryptoError` of `function`.
    static func read<T>(_ function: String, _ body: () throws(TLVError) -> T) throws(CryptoError) -> T {
        do {
            return try body()
        } catch {
            switch error.code {
            case .depthExceeded:
                throw CryptoError(
                    .limitExceeded, function: function,
                    "ASN.1: nesting deeper than \(CryptoLimits.maxKeyStructureDepth) (CryptoLimits.maxKeyStructureDepth)"
                )
            case .tooManyElements:
                throw CryptoError(
                    .limitExceeded, function: function,
                    "ASN.1: more than \(CryptoLimits.maxKeyStructureElements) data objects"
                        + " (CryptoLimits.maxKeyStructureElements)")
            default:
                throw CryptoError(.invalidInput, function: function, "ASN.1: \(error.reason)")
            }
        }
    }

    /// OIDs MRTDCrypto reads and writes itself (RFC 8017, RFC 5480, X9.62).
    static let rsaEncryption = "1.2.840.113549.1.1.1"
    static let rsassaPSS = "1.2.840.113549.1.1.10"
    static let ecPublicKey = "1.2.840.10045.2.1"
    static let primeField = "1.2.840.10045.1.1"
}

extension TLVNode {
    /// The elements of a SEQUENCE (tag 30), or an error naming `function`.
    func sequence(_ function: String) throws(CryptoError) -> [TLVNode] {
        try KeyStructure.read(function) { () throws(TLVError) in try expect(0x30, "SEQUENCE").children }
    }

    /// Unsigned magnitude of a non-negative INTEGER (leading zeros removed; negative rejected).
    func unsignedInteger(_ function: String) throws(CryptoError) -> [UInt8] {
        try KeyStructure.read(function) { () throws(TLVError) in try unsignedIntegerBytes() }
    }

    /// An OBJECT IDENTIFIER in dotted form.
    func objectIdentifier(_ function: String) throws(CryptoError) -> String {
        try KeyStructure.read(function) { () throws(TLVError) in try objectIdentifierValue().dotted }
    }

    func octetString(_ function: String) throws(CryptoError) -> [UInt8] {
        try KeyStructure.read(function) { () throws(TLVError) in try expect(0x04, "OCTET STRING").valueBytes }
    }

    /// BIT STRING content without the unused-bits byte (which must be 0).
    func bitString(_ function: String) throws(CryptoError) -> [UInt8] {
        try KeyStructure.read(function) { () throws(TLVError) in try bitStringValue() }
    }
}
