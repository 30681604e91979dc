public import ASN1TLV
public import MRTDCrypto
public import MRTDTrust

/// Key type and signature scheme of a generated CA or signer.
public enum PKIAlgorithm: String, Sendable, Hashable, CaseIterable, Codable {
    /// RSA-2048, sha256WithRSAEncryption (PKCS#1 v1.5).
    case rsaPKCS1 = "rsa-pkcs1"
    /// RSA-2048, RSASSA-PSS with SHA-256, MGF1-SHA-256, salt 32.
    case rsaPSS = "rsa-pss"
    /// ECDSA on NIST P-256 with SHA-256.
    case ecdsaP256 = "ecdsa-p256"
    /// ECDSA on brainpoolP256r1 with SHA-256.
    case ecdsaBrainpoolP256r1 = "ecdsa-brainpoolP256r1"
    /// ECDSA on NIST P-384 with SHA-384.
    case ecdsaP384 = "ecdsa-p384"

    public var signatureAlgorithm: SigningAlgorithm {
        switch self {
        case .rsaPKCS1: return .rsaPKCS1(.sha256)
        case .rsaPSS: return .rsaPSS(.sha256)
        case .ecdsaP256, .ecdsaBrainpoolP256r1: return .ecdsa(.sha256)
        case .ecdsaP384: return .ecdsa(.sha384)
        }
    }

    var curve: NamedCurve? {
        switch self {
        case .rsaPKCS1, .rsaPSS: return nil
        case .ecdsaP256: return .secp256r1
        case .ecdsaBrainpoolP256r1: return .brainpoolP256r1
        case .ecdsaP384: return .secp384r1
        }
    }
}

/// Process-wide cache of generated keys so that repeated profiles (tests, `emrtd demo`) do not pay for key
/// generation again. Keys are identified by a slot name; the same slot always yields the same key in a process.
/// Issued certificates are cached the same way (by issuer, role and options), so two documents generated with the
/// same PKI options carry byte-identical certificates. Use another `TestPKIOptions.keyTag` for a distinct PKI.
public final class GeneratorKeyCache: Sendable {
    public static let shared = GeneratorKeyCache()
    private let keys = LockedCache<PrivateKey>()
    private let certificates = LockedCache<IssuedCertificate>()

    public init() {}

    /// The key of `slot`, generated on first use.
    public func key(slot: String, algorithm: KeySpec) throws(GeneratorError) -> PrivateKey {
        let id = "\(slot)#\(algorithm.cacheName)"
        if let k = keys.value(id) { return k }
        let k: PrivateKey = try withCrypto("key.generate") { () throws(CryptoError) -> PrivateKey in
            switch algorithm {
            case .rsa(let bits): return try PrivateKey.generateRSA(bits: bits)
            case .ec(let curve): return try PrivateKey.generateEC(curve: ECCurve(named: curve))
            }
        }
        return keys.insert(id, k)
    }

    /// The certificate `id`, made on first use (so that repeated profiles share byte-identical certificates).
    func certificate(id: String, make: () throws(GeneratorError) -> IssuedCertificate) throws(GeneratorError)
        -> IssuedCertificate
    {
        if let c = certificates.value(id) { return c }
        return certificates.insert(id, try make())
    }

    /// A key type.
    public enum KeySpec: Sendable, Hashable {
        case rsa(bits: Int)
        case ec(NamedCurve)
        var cacheName: String {
            switch self {
            case .rsa(let b): return "rsa\(b)"
            case .ec(let c): return c.rawValue
            }
        }
    }
}

extension PKIAlgorithm {
    var keySpec: GeneratorKeyCache.KeySpec {
        if let c = curve { return .ec(c) }
        return .rsa(bits: 2048)
    }
}

/// A generated certificate with its private key. `description` names the subject only.
public struct IssuedCertificate: Sendable, CustomStringConvertible {
    public var description: String { "IssuedCertificate(\(name.commonName ?? ""), \(algorithm.rawValue))" }
    public var info: Certificate
    public var privateKey: PrivateKey
    public var algorithm: PKIAlgorithm
    public var name: DistinguishedName
    public var der: [UInt8] { info.encoded }
    public var signer: SignerMaterial {
        SignerMaterial(certificate: info, privateKey: privateKey, signatureAlgorithm: algorithm.signatureAlgorithm)
    }
}

/// Options of a generated test PKI (ICAO 9303-12 §7: CSCA → document signer, plus a master-list signer).
public struct TestPKIOptions: Sendable, Hashable {
    /// Country of the CSCA and signers (the `C` attribute). Defaults to the Utopia specimen state "UTO".
    public var country: String
    public var organization: String
    public var cscaAlgorithm: PKIAlgorithm
    public var documentSignerAlgorithm: PKIAlgorithm
    /// Encode EC SubjectPublicKeyInfos with explicit curve parameters (as German certificates do).
    public var explicitECParameters: Bool
    public var cscaNotBefore: ASN1Time
    public var cscaNotAfter: ASN1Time
    public var documentSignerNotBefore: ASN1Time
    public var documentSignerNotAfter: ASN1Time
    /// Key cache slot prefix: PKIs with different tags get different keys.
    public var keyTag: String
    /// Add privateKeyUsagePeriod and documentTypeList extensions (ICAO 9303-12 §7).
    public var icaoExtensions: Bool

    public init(
        country: String = "UTO", organization: String = "Utopia Passport Office",
        cscaAlgorithm: PKIAlgorithm = .ecdsaP256, documentSignerAlgorithm: PKIAlgorithm = .ecdsaP256,
        explicitECParameters: Bool = false,
        cscaNotBefore: ASN1Time = ASN1Time(year: 2020, month: 1, day: 1),
        cscaNotAfter: ASN1Time = ASN1Time(year: 2037, month: 1, day: 1),
        documentSignerNotBefore: ASN1Time = ASN1Time(year: 2021, month: 1, day: 1),
        documentSignerNotAfter: ASN1Time = ASN1Time(year: 2031, month: 12, day: 31, hour: 23, minute: 59, second: 59),
        keyTag: String = "default", icaoExtensions: Bool = true
    ) {
        self.country = country
        self.organization = organization
        self.cscaAlgorithm = cscaAlgorithm
        self.documentSignerAlgorithm = documentSignerAlgorithm
        self.explicitECParameters = explicitECParameters
        self.cscaNotBefore = cscaNotBefore
        self.cscaNotAfter = cscaNotAfter
        self.documentSignerNotBefore = documentSignerNotBefore
        self.documentSignerNotAfter = documentSignerNotAfter
        self.keyTag = keyTag
        self.icaoExtensions = icaoExtensions
    }
}

/// A generated test PKI: a self-signed CSCA, a document signer it issued, a master-list signer it issued.
public struct TestPKI: Sendable {
    public var options: TestPKIOptions
    public var csca: IssuedCertificate
    public var documentSigner: IssuedCertificate
    public var masterListSigner: IssuedCertificate

    public static func generate(
        _ options: TestPKIOptions = TestPKIOptions(),
        cache: GeneratorKeyCache = .shared
    ) throws(GeneratorError) -> TestPKI {
        let csca = try makeCSCA(options: options, cache: cache)
        let ds = try issue(by: csca, options: options, role: .documentSigner, cache: cache)
        let mls = try issue(by: csca, options: options, role: .masterListSigner, cache: cache)
        return TestPKI(options: options, csca: csca, documentSigner: ds, masterListSigner: mls)
    }

    /// A self-signed CSCA certificate (ICAO 9303-12 §7: basicConstraints cA TRUE pathLen 0, keyUsage
    /// keyCertSign + cRLSign, SKI = AKI).
    public static func makeCSCA(
        options: TestPKIOptions, commonName: String? = nil,
        cache: GeneratorKeyCache = .shared
    ) throws(GeneratorError) -> IssuedCertificate {
        try cache.certificate(id: "csca|\(commonName ?? "")|\(options)") {
            () throws(GeneratorError) -> IssuedCertificate in
            try makeCSCAUncached(options: options, commonName: commonName, cache: cache)
        }
    }

    static func makeCSCAUncached(
        options: TestPKIOptions, commonName: String?,
        cache: GeneratorKeyCache
    ) throws(GeneratorError) -> IssuedCertificate {
        let key = try cache.key(
            slot: "\(options.keyTag)/csca/\(options.country)", algorithm: options.cscaAlgorithm.keySpec)
        let name = DistinguishedName(
            country: options.country, organization: options.organization,
            organizationalUnit: "Country Signing CA",
            commonName: commonName ?? "CSCA \(options.country) Test")
        let spki = SubjectPublicKeyInfoEncoder.encode(key.publicKey, explicitParameters: options.explicitECParameters)
        let kid = CertificateExtension.keyIdentifier(subjectPublicKeyInfo: spki)
        var exts: [CertificateExtension] = [
            .basicConstraints(ca: true, pathLength: 0),
            .keyUsage([.keyCertSign, .cRLSign]),
            .subjectKeyIdentifier(kid),
            .authorityKeyIdentifier(kid),
        ]
        if options.icaoExtensions {
            exts.append(
                .privateKeyUsagePeriod(
                    notBefore: options.cscaNotBefore,
                    notAfter: ASN1Time(year: options.cscaNotBefore.year + 5, month: 1, day: 1)))
        }
        let builder = CertificateBuilder(
            serialNumber: serial(), issuer: name, subject: name,
            notBefore: options.cscaNotBefore, notAfter: options.cscaNotAfter,
            subjectPublicKeyInfo: spki, extensions: exts)
        let der = try withCrypto("certificate.sign") { () throws(CryptoError) in
            try builder.sign(with: key, algorithm: options.cscaAlgorithm.signatureAlgorithm)
        }
        return IssuedCertificate(
            info: try Certificate(issued: der), privateKey: key, algorithm: options.cscaAlgorithm, name: name)
    }

    public enum Role: String, Sendable { case documentSigner, masterListSigner }

    /// A certificate issued by `issuer`: a document signer (ICAO 9303-12 §7: keyUsage digitalSignature,
    /// no basicConstraints, documentTypeList) or a master-list signer (extKeyUsage id-icao-cscaMasterListSigningKey).
    public static func issue(
        by issuer: IssuedCertificate, options: TestPKIOptions, role: Role, slot: String? = nil,
        notBefore: ASN1Time? = nil, notAfter: ASN1Time? = nil,
        cache: GeneratorKeyCache = .shared
    ) throws(GeneratorError) -> IssuedCertificate {
        let id =
            "\(role)|\(slot ?? "")|\(String(describing: notBefore))|\(String(describing: notAfter))|\(issuer.info.serialNumber)|\(options)"
        return try cache.certificate(id: id) { () throws(GeneratorError) -> IssuedCertificate in
            try issueUncached(
                by: issuer, options: options, role: role, slot: slot, notBefore: notBefore,
                notAfter: notAfter, cache: cache)
        }
    }

    static func issueUncached(
        by issuer: IssuedCertificate, options: TestPKIOptions, role: Role, slot: String?,
        notBefore: ASN1Time?, notAfter: ASN1Time?,
        cache: GeneratorKeyCache
    ) throws(GeneratorError) -> IssuedCertificate {
        let algorithm = role == .documentSigner ? options.documentSignerAlgorithm : options.cscaAlgorithm
        let key = try cache.key(
            slot: slot ?? "\(options.keyTag)/\(role.rawValue)/\(options.country)", algorithm: algorithm.keySpec)
        let nb = notBefore ?? options.documentSignerNotBefore
        let na = notAfter ?? options.documentSignerNotAfter
        let name = DistinguishedName(
            country: options.country, organization: options.organization,
            organizationalUnit: role == .documentSigner ? "Document Signer" : "Master List Signer",
            commonName: role == .documentSigner ? "DS \(options.country) Test" : "MLS \(options.country) Test")
        let spki = SubjectPublicKeyInfoEncoder.encode(key.publicKey, explicitParameters: options.explicitECParameters)
        var exts: [CertificateExtension] = [
            .authorityKeyIdentifier(issuer.info.subjectKeyIdentifier ?? []),
            .subjectKeyIdentifier(CertificateExtension.keyIdentifier(subjectPublicKeyInfo: spki)),
            .keyUsage([.digitalSignature]),
        ]
        switch role {
        case .documentSigner:
            if options.icaoExtensions {
                exts.append(
                    .privateKeyUsagePeriod(
                        notBefore: nb,
                        notAfter: ASN1Time(
                            secondsSince1970: min(
                                na.secondsSince1970, nb.secondsSince1970 + 366 * 86400))))
                exts.append(.documentTypeList(["P", "ID"]))
            }
        case .masterListSigner:
            exts.append(.extendedKeyUsage(["2.23.136.1.1.3"]))
        }
        let builder = CertificateBuilder(
            serialNumber: serial(), issuer: issuer.name, subject: name,
            notBefore: nb, notAfter: na, subjectPublicKeyInfo: spki, extensions: exts)
        let der = try withCrypto("certificate.sign") { () throws(CryptoError) in
            try builder.sign(with: issuer.privateKey, algorithm: issuer.algorithm.signatureAlgorithm)
        }
        return IssuedCertificate(info: try Certificate(issued: der), privateKey: key, algorithm: algorithm, name: name)
    }

    /// A CRL issued by the CSCA listing `revoked` certificates (RFC 5280 §5, ICAO 9303-12 §7).
    public func crl(
        revoking revoked: [Certificate] = [],
        thisUpdate: ASN1Time = ASN1Time(year: 2026, month: 1, day: 1),
        nextUpdate: ASN1Time = ASN1Time(year: 2036, month: 1, day: 1)
    ) throws(GeneratorError) -> [UInt8] {
        let builder = CRLBuilder(
            issuer: csca.name, thisUpdate: thisUpdate, nextUpdate: nextUpdate,
            revoked: revoked.map { .init(serialNumber: $0.serialNumber, revocationDate: thisUpdate) },
            authorityKeyIdentifier: csca.info.subjectKeyIdentifier)
        return try withCrypto("crl.sign") { () throws(CryptoError) in
            try builder.sign(with: csca.privateKey, algorithm: csca.algorithm.signatureAlgorithm)
        }
    }

    /// An ICAO master list (ICAO 9303-12 §8) holding `certificates` (default: this PKI's CSCA), signed by the
    /// master-list signer, with the signer's CSCA embedded too.
    public func masterList(
        certificates: [[UInt8]]? = nil,
        signingTime: ASN1Time = ASN1Time(year: 2026, month: 1, day: 1)
    ) throws(GeneratorError) -> [UInt8] {
        try withCrypto("masterList.sign") { () throws(CryptoError) in
            try MasterListBuilder.build(
                certificates: certificates ?? [csca.der], signerCertificate: masterListSigner.info,
                signerKey: masterListSigner.privateKey,
                signatureAlgorithm: masterListSigner.algorithm.signatureAlgorithm,
                extraCertificates: [csca.der], signingTime: signingTime)
        }
    }

    /// `count` distinct self-signed CSCAs (fresh keys, one per index) for master-list and trust-store tests.
    /// Countries cycle through `countries`; each CSCA's common name carries its index.
    public static func makeCSCAs(
        count: Int, countries: [String] = ["UTO", "DE", "NL", "FR", "AT", "BE"],
        algorithm: PKIAlgorithm = .ecdsaP256, keyTag: String = "bulk",
        cache: GeneratorKeyCache = .shared
    ) throws(GeneratorError) -> [IssuedCertificate] {
        var out: [IssuedCertificate] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            let options = TestPKIOptions(
                country: countries[i % countries.count], cscaAlgorithm: algorithm,
                documentSignerAlgorithm: algorithm, keyTag: "\(keyTag)/\(i)")
            out.append(try makeCSCA(options: options, commonName: "CSCA \(options.country) Test \(i)", cache: cache))
        }
        return out
    }

    /// A positive 8-octet serial number.
    static func serial() -> [UInt8] {
        var s = SystemRandom().randomBytes(count: 8)
        s[0] = (s[0] & 0x7F) | 0x10
        return s
    }
}
