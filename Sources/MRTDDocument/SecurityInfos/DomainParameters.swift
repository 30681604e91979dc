public import ASN1TLV

/// An AlgorithmIdentifier (RFC 5280 §4.1.1.2) as used by PACEDomainParameterInfo,
/// ChipAuthenticationDomainParameterInfo and SubjectPublicKeyInfo:
///
/// ```
/// AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY DEFINED BY algorithm OPTIONAL }
/// ```
///
/// The parameters are kept as raw DER (`parameters`, exactly as read) and, where recognised, parsed
/// (`domainParameters`).
public struct AlgorithmIdentifierInfo: Sendable, Hashable {
    public var algorithm: ASN1ObjectIdentifier
    /// The parameters' encoding exactly as read (nil when absent).
    public var parameters: [UInt8]?
    /// The parsed domain parameters (nil when absent, NULL, or not recognised).
    public var domainParameters: DomainParameters?

    public init(algorithm: ASN1ObjectIdentifier, parameters: [UInt8]?, domainParameters: DomainParameters?) {
        self.algorithm = algorithm
        self.parameters = parameters
        self.domainParameters = domainParameters
    }

    init(node: TLVNode) throws(SecurityInfosError) {
        do {
            try node.expect(0x30, "AlgorithmIdentifier")
            let oid = try node.child(at: 0, "algorithm").objectIdentifierValue()
            algorithm = oid
            guard node.children.count <= 2 else {
                throw SecurityInfosError(
                    .unexpectedStructure, offset: node.offset,
                    "AlgorithmIdentifier with \(node.children.count) elements")
            }
            if node.children.count == 2 {
                let p = node.children[1]
                parameters = p.encodedBytes
                domainParameters = try DomainParameters.parse(algorithm: oid, parameters: p)
            } else {
                parameters = nil
                domainParameters = nil
            }
        } catch let e as SecurityInfosError {
            throw e
        } catch let e as TLVError {
            throw SecurityInfosError(e)
        } catch {
            throw SecurityInfosError(.malformedEncoding, offset: node.offset, "\(error)")
        }
    }
}

/// Domain parameters for PACE and Chip Authentication (ICAO 9303-11 §9.5.1, BSI TR-03110-3 A.2.1).
public enum DomainParameters: Sendable, Hashable {
    /// standardizedDomainParameters with the parameter id (9303-11 §9.5.1 table: 0–2 DH, 8–18 ECDH).
    case standardized(id: Int)
    /// ECParameters given as a namedCurve OID (RFC 5480).
    case namedCurve(ASN1ObjectIdentifier)
    /// ECParameters given explicitly (X9.62 / BSI TR-03111 §4.1.1).
    case ecExplicit(ExplicitECParameters)
    /// DH domain parameters (X9.42 DomainParameters or PKCS #3 DHParameter).
    case dh(DHParameters)

    static func parse(algorithm: ASN1ObjectIdentifier, parameters p: TLVNode) throws(TLVError) -> DomainParameters? {
        if algorithm == SecurityInfoOID.standardizedDomainParameters {
            let id = try p.integerValue()
            guard id >= 0 else { throw TLVError(.invalidValue, offset: p.offset, "negative standardized parameter id") }
            return .standardized(id: id)
        }
        if algorithm == SecurityInfoOID.ecPublicKey {
            if p.tag == 0x06 { return .namedCurve(try p.objectIdentifierValue()) }
            if p.tag == 0x05 { return nil }  // implicitlyCA
            return .ecExplicit(try ExplicitECParameters(node: p))
        }
        if algorithm == SecurityInfoOID.dhPublicNumber || algorithm == SecurityInfoOID.dhKeyAgreement {
            return .dh(try DHParameters(node: p, x942: algorithm == SecurityInfoOID.dhPublicNumber))
        }
        return nil
    }
}

/// Explicit elliptic-curve domain parameters over a prime field (X9.62; BSI TR-03111 §4.1.1):
///
/// ```
/// ECParameters ::= SEQUENCE {
///   version INTEGER { ecpVer1(1) }, fieldID FieldID {{FieldTypes}}, curve Curve,
///   base ECPoint, order INTEGER, cofactor INTEGER OPTIONAL }
/// FieldID ::= SEQUENCE { fieldType OBJECT IDENTIFIER (prime-field), parameters INTEGER (p) }
/// Curve ::= SEQUENCE { a FieldElement, b FieldElement, seed BIT STRING OPTIONAL }
/// ```
///
/// Integers are unsigned big-endian magnitudes without leading zeros; a and b are the octet strings as read.
public struct ExplicitECParameters: Sendable, Hashable {
    /// The ECParameters encoding exactly as read.
    public var encoded: [UInt8]
    public var p: [UInt8]
    public var a: [UInt8]
    public var b: [UInt8]
    /// The base point as encoded (usually 04||X||Y).
    public var base: [UInt8]
    public var order: [UInt8]
    public var cofactor: [UInt8]?

    init(node: TLVNode) throws(TLVError) {
        try node.expect(0x30, "ECParameters")
        encoded = node.encodedBytes
        let version = try node.child(at: 0, "version").integerValue()
        guard version == 1 else {
            throw TLVError(.invalidValue, offset: node.offset, "ECParameters version \(version)")
        }
        let field = try node.child(at: 1, "fieldID").expect(0x30, "FieldID")
        let fieldType = try field.child(at: 0, "fieldType").objectIdentifierValue()
        guard fieldType == SecurityInfoOID.primeField else {
            throw TLVError(.invalidValue, offset: field.offset, "field type \(fieldType) is not prime-field")
        }
        p = try field.child(at: 1, "prime").unsignedIntegerBytes()
        let curve = try node.child(at: 2, "curve").expect(0x30, "Curve")
        a = try curve.child(at: 0, "a").octetStringValue()
        b = try curve.child(at: 1, "b").octetStringValue()
        base = try node.child(at: 3, "base").octetStringValue()
        order = try node.child(at: 4, "order").unsignedIntegerBytes()
        cofactor = node.children.count > 5 ? try node.children[5].unsignedIntegerBytes() : nil
    }
}

/// Finite-field Diffie-Hellman domain parameters:
///
/// ```
/// DomainParameters ::= SEQUENCE { p INTEGER, g INTEGER, q INTEGER, j INTEGER OPTIONAL,
///                                 validationParms ValidationParms OPTIONAL }   -- X9.42 (dhpublicnumber)
/// DHParameter ::= SEQUENCE { prime INTEGER, base INTEGER, privateValueLength INTEGER OPTIONAL } -- PKCS #3
/// ```
public struct DHParameters: Sendable, Hashable {
    /// The parameters' encoding exactly as read.
    public var encoded: [UInt8]
    public var p: [UInt8]
    public var g: [UInt8]
    /// The subgroup order (X9.42 only).
    public var q: [UInt8]?

    public init(encoded: [UInt8], p: [UInt8], g: [UInt8], q: [UInt8]?) {
        self.encoded = encoded
        self.p = p
        self.g = g
        self.q = q
    }

    init(node: TLVNode, x942: Bool) throws(TLVError) {
        try node.expect(0x30, "DH domain parameters")
        encoded = node.encodedBytes
        p = try node.child(at: 0, "p").unsignedIntegerBytes()
        g = try node.child(at: 1, "g").unsignedIntegerBytes()
        q = x942 ? try node.child(at: 2, "q").unsignedIntegerBytes() : nil
    }
}

/// A SubjectPublicKeyInfo (RFC 5280 §4.1.2.7) holding an ECDH or DH public key, as in
/// ChipAuthenticationPublicKeyInfo (ICAO 9303-11 §9.2.5):
///
/// ```
/// SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING }
/// ```
///
/// For EC keys the BIT STRING holds the encoded point; for DH keys it holds a DER INTEGER y.
public struct SubjectPublicKeyInfoValue: Sendable, Hashable {
    /// The SubjectPublicKeyInfo exactly as read.
    public var encoded: [UInt8]
    public var algorithm: AlgorithmIdentifierInfo
    /// The BIT STRING contents (without the unused-bits octet).
    public var subjectPublicKey: [UInt8]
    /// The public key proper: the EC point (as encoded) or the DH value y (unsigned, minimal).
    public var publicKey: [UInt8]

    public var isEC: Bool { algorithm.algorithm == SecurityInfoOID.ecPublicKey }
    public var isDH: Bool {
        algorithm.algorithm == SecurityInfoOID.dhPublicNumber || algorithm.algorithm == SecurityInfoOID.dhKeyAgreement
    }

    /// For id-PK-DH keys whose algorithm is not dhpublicnumber (e.g. standardizedDomainParameters):
    /// the BIT STRING still holds y as a DER INTEGER (BSI TR-03110-3 D.3.2); unwrap it.
    mutating func unwrapDHInteger() {
        guard !isDH, subjectPublicKey.first == 0x02,
            let node = try? TLVParser.parse(subjectPublicKey, rules: .ber),
            let y = try? node.unsignedIntegerBytes()
        else { return }
        publicKey = y
    }

    public init(node: TLVNode) throws(SecurityInfosError) {
        do {
            try node.expect(0x30, "SubjectPublicKeyInfo")
            guard node.children.count == 2 else {
                throw SecurityInfosError(
                    .unexpectedStructure, offset: node.offset,
                    "SubjectPublicKeyInfo with \(node.children.count) elements")
            }
            encoded = node.encodedBytes
            algorithm = try AlgorithmIdentifierInfo(node: node.children[0])
            let bits = node.children[1]
            subjectPublicKey = try bits.bitStringValue()
            guard !subjectPublicKey.isEmpty else {
                throw SecurityInfosError(.invalidValue, offset: bits.offset, "empty subjectPublicKey")
            }
            if algorithm.algorithm == SecurityInfoOID.dhPublicNumber
                || algorithm.algorithm == SecurityInfoOID.dhKeyAgreement
            {
                let y = try TLVParser.parse(subjectPublicKey, rules: .ber)
                do {
                    publicKey = try y.unsignedIntegerBytes()
                } catch {
                    throw SecurityInfosError(error, base: bits.offset + 3)
                }
            } else {
                publicKey = subjectPublicKey
            }
        } catch let e as SecurityInfosError {
            throw e
        } catch let e as TLVError {
            throw SecurityInfosError(e)
        } catch {
            throw SecurityInfosError(.malformedEncoding, offset: node.offset, "\(error)")
        }
    }
}
