import ASN1TLV

/// X9.62 / RFC 3279 §2.3.5 ECParameters, as document signers with explicit domain parameters use them:
///
///     ECParameters ::= SEQUENCE {
///        version   INTEGER { ecpVer1(1) } (ecpVer1),
///        fieldID   FieldID {{FieldTypes}},      -- SEQUENCE { prime-field OID, p INTEGER }
///        curve     Curve,                       -- SEQUENCE { a OCTET STRING, b OCTET STRING, seed BIT STRING OPTIONAL }
///        base      ECPoint,                     -- OCTET STRING
///        order     INTEGER,
///        cofactor  INTEGER OPTIONAL }
extension ECCurve {
    /// Parses explicit ECParameters (prime fields only). A missing cofactor is taken as 1.
    init(explicitParameters node: TLVNode) throws(CryptoError) {
        let fn = "ECCurve(explicitParameters:)"
        let fields = try node.sequence(fn)
        guard fields.count >= 5 else {
            throw CryptoError(.invalidParameters, function: fn, "ECParameters has \(fields.count) elements")
        }
        let fieldID = try fields[1].sequence(fn)
        guard fieldID.count == 2, try fieldID[0].objectIdentifier(fn) == KeyStructure.primeField else {
            throw CryptoError(.unsupportedAlgorithm, function: fn, "only prime-field curves are supported")
        }
        let p = try fieldID[1].unsignedInteger(fn)
        let curve = try fields[2].sequence(fn)
        guard curve.count >= 2 else {
            throw CryptoError(.invalidParameters, function: fn, "Curve has \(curve.count) elements")
        }
        let a = try curve[0].octetString(fn)
        let b = try curve[1].octetString(fn)
        let base = try fields[3].octetString(fn)
        let order = try fields[4].unsignedInteger(fn)
        let cofactor = fields.count > 5 ? try fields[5].unsignedInteger(fn) : [1]
        try self.init(p: p, a: a, b: b, generator: base, order: order, cofactor: cofactor)
    }

    /// DER ECParameters (explicit form, no seed), coordinates fixed to the field width.
    var explicitParametersDER: [UInt8] {
        DER.sequence([
            DER.integer(1),
            DER.sequence([DER.objectIdentifier(KeyStructure.primeField), DER.integer(unsigned: p)]),
            DER.sequence([DER.octetString(a), DER.octetString(b)]),
            DER.octetString(generator),
            DER.integer(unsigned: order),
            DER.integer(unsigned: cofactor),
        ])
    }

    /// The AlgorithmIdentifier parameters: the named-curve OID, or explicit parameters.
    var parametersDER: [UInt8] {
        if let namedCurve { return DER.objectIdentifier(namedCurve.oid) }
        return explicitParametersDER
    }

    /// Parses the parameters field of an id-ecPublicKey AlgorithmIdentifier (namedCurve or ECParameters).
    init(algorithmParameters node: TLVNode) throws(CryptoError) {
        let fn = "ECCurve(algorithmParameters:)"
        switch node.tag {
        case 0x06:
            let oid = try node.objectIdentifier(fn)
            guard let named = NamedCurve(oid: oid) else {
                throw CryptoError(.unsupportedAlgorithm, function: fn, "unknown named curve \(oid)")
            }
            self.init(named: named)
        case 0x30:
            try self.init(explicitParameters: node)
        default:
            throw CryptoError(
                .unsupportedAlgorithm, function: fn, "implicitlyCA or unknown EC parameters (tag \(node.tag))")
        }
    }
}
