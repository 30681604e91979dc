public import ASN1TLV
public import MRTDCrypto
public import MRTDDocument
public import MRTDTrust

/// Options of a generation run.
public struct GeneratorOptions: Sendable, Hashable {
    public var pki: TestPKIOptions
    /// Target size of DG2 in bytes (padded with JPEG COM segments), e.g. 15_000, 20_000, 60_000; nil = natural size
    /// (or the profile's default).
    public var dg2Size: Int?
    /// Hash of the data groups in the LDS security object.
    public var dataGroupHash: HashAlgorithm
    /// Write an LDSSecurityObject v1 with this LDSVersionInfo (nil: v0).
    public var ldsVersionInfo: LDSSecurityObjectEncoder.VersionInfo?
    /// How SignerInfos identify the signer.
    public var signerIdentification: SignedDataBuilder.SignerIdentification
    /// signingTime of the SOD and EF.CardSecurity.
    public var signingTime: ASN1Time
    /// Replaces the profile's specimen data.
    public var specimen: Specimen?
    /// Replaces the profile's face image format (`ProfileSpec.faceFormat`).
    public var faceFormat: ImageFormat?
    /// Data groups served exactly as given instead of the generated ones, and signed into EF.SOD like them: a
    /// hostile document whose issuer signed what he liked (`HostileImages` builds such data groups).
    public var replacedDataGroups: [LDSFile: [UInt8]] = [:]

    public init(
        pki: TestPKIOptions = TestPKIOptions(), dg2Size: Int? = nil, dataGroupHash: HashAlgorithm = .sha256,
        ldsVersionInfo: LDSSecurityObjectEncoder.VersionInfo? = nil,
        signerIdentification: SignedDataBuilder.SignerIdentification = .issuerAndSerialNumber,
        signingTime: ASN1Time = ASN1Time(year: 2021, month: 4, day: 16, hour: 9, minute: 30),
        specimen: Specimen? = nil, faceFormat: ImageFormat? = nil, replacedDataGroups: [LDSFile: [UInt8]] = [:]
    ) {
        self.pki = pki
        self.dg2Size = dg2Size
        self.dataGroupHash = dataGroupHash
        self.ldsVersionInfo = ldsVersionInfo
        self.signerIdentification = signerIdentification
        self.signingTime = signingTime
        self.specimen = specimen
        self.faceFormat = faceFormat
        self.replacedDataGroups = replacedDataGroups
    }
}

/// A generated document with the trust material a verifier needs.
public struct GeneratedDocument: Sendable {
    /// What the virtual chip serves.
    public var profile: DocumentProfile
    /// The CSCA a verifier should trust for this document (for `signerOfOtherCSCA`: the genuine one, which did
    /// NOT issue the signer).
    public var cscaCertificate: [UInt8]
    /// The document signer certificate embedded in EF.SOD.
    public var documentSignerCertificate: [UInt8]
    /// A CRL of the trusted CSCA (lists the signer for `revokedSigner`, empty otherwise).
    public var crl: [UInt8]
    /// An ICAO master list holding the trusted CSCA, signed by `masterListSignerCertificate`.
    public var masterList: [UInt8]
    public var masterListSignerCertificate: [UInt8]
    /// The PKI that signed EF.SOD (private keys included, for tests that need to sign more).
    public var pki: TestPKI
    public var forgery: Forgery?
    public var signingTime: ASN1Time
    public var spec: ProfileSpec
}

/// Generates specimen documents for the virtual chip: named profiles (`ProfileSpec.builtIn`) and forged
/// variants (`Forgery`). Keys come from `GeneratorKeyCache.shared`, so repeated generation is fast.
public enum SpecimenGenerator {
    /// Built-in profile names, default first.
    public static var profileNames: [String] { ProfileSpec.builtIn.map(\.name) }
    public static let defaultProfileName = "pace-gm-brainpool-aes128"

    /// Generates a profile by name; "NAME+FORGERY" (e.g. "bac+revoked-signer") applies a forgery.
    public static func generate(named name: String, options: GeneratorOptions = GeneratorOptions())
        throws(GeneratorError) -> GeneratedDocument
    {
        let parts = name.split(separator: "+", maxSplits: 1).map(String.init)
        guard let spec = ProfileSpec.named(parts.first ?? "") else {
            throw GeneratorError(
                .unknownProfile, step: "profile.lookup",
                "unknown profile '\(name)'; known: \(profileNames.joined(separator: ", "))")
        }
        var forgery: Forgery? = nil
        if parts.count == 2 {
            guard let f = Forgery(rawValue: parts[1]) else {
                throw GeneratorError(
                    .unknownProfile, step: "profile.lookup",
                    "unknown forgery '\(parts[1])'; known: \(Forgery.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            forgery = f
        }
        return try generate(spec, forgery: forgery, options: options)
    }

    // swiftlint:disable:next function_body_length
    public static func generate(
        _ spec: ProfileSpec, forgery: Forgery? = nil,
        options: GeneratorOptions = GeneratorOptions()
    ) throws(GeneratorError) -> GeneratedDocument {
        let cache = GeneratorKeyCache.shared
        var specimen = options.specimen ?? spec.specimen
        if forgery == .expiredDocument { specimen.dateOfExpiry = "210430" }
        var signingTime = options.signingTime

        // 1. The PKI (ICAO 9303-12 §7).
        var pkiOptions = options.pki
        if forgery == .cscaOfOtherCountry {
            pkiOptions.country = "DE"
            pkiOptions.organization = "Other Country Passport Office"
            pkiOptions.keyTag += "/other-country"
        }
        let pki = try TestPKI.generate(pkiOptions, cache: cache)
        var trustedCSCA = pki.csca
        var signingPKI = pki
        switch forgery {
        case .signerOfOtherCSCA:
            // Same CSCA name, different key: the signer chains by name but not by signature or key identifier.
            var rogue = pkiOptions
            rogue.keyTag += "/rogue"
            let rogueCSCA = try TestPKI.makeCSCA(options: rogue, cache: cache)
            signingPKI.documentSigner = try TestPKI.issue(
                by: rogueCSCA, options: rogue, role: .documentSigner, cache: cache)
            trustedCSCA = pki.csca
        case .expiredSignerSignedInValidity:
            signingPKI.documentSigner = try TestPKI.issue(
                by: pki.csca, options: pkiOptions, role: .documentSigner, slot: "\(pkiOptions.keyTag)/ds-expired",
                notBefore: ASN1Time(year: 2020, month: 6, day: 1), notAfter: ASN1Time(year: 2021, month: 12, day: 31),
                cache: cache)
            signingTime = ASN1Time(year: 2021, month: 4, day: 16, hour: 9, minute: 30)
        case .signedOutsideSignerValidity:
            signingPKI.documentSigner = try TestPKI.issue(
                by: pki.csca, options: pkiOptions, role: .documentSigner, slot: "\(pkiOptions.keyTag)/ds-expired",
                notBefore: ASN1Time(year: 2020, month: 6, day: 1), notAfter: ASN1Time(year: 2021, month: 1, day: 31),
                cache: cache)
            signingTime = ASN1Time(year: 2021, month: 4, day: 16, hour: 9, minute: 30)
        default: break
        }
        let ds = signingPKI.documentSigner

        // 2. Chip keys.
        var chipKeys = ChipKeys()
        var caPublicKeyInfo: [UInt8]? = nil
        if let ca = spec.chipAuthentication {
            let (key, spki) = try chipAuthenticationKey(ca, slot: "chip/ca", cache: cache)
            chipKeys.chipAuthentication = key
            caPublicKeyInfo = spki
        }
        var aaPublicKeyInfo: [UInt8]? = nil
        if let aa = spec.activeAuthentication {
            let key = try cache.key(slot: "chip/aa", algorithm: aaKeySpec(aa))
            chipKeys.activeAuthentication = key
            aaPublicKeyInfo = key.publicKey.subjectPublicKeyInfo
        }
        switch forgery {
        case .activeAuthenticationKeyMismatch:
            guard let aa = spec.activeAuthentication else {
                throw GeneratorError(
                    .invalidInput, step: "forgery.aa", "profile \(spec.name) has no Active Authentication")
            }
            aaPublicKeyInfo = try cache.key(slot: "chip/aa-other", algorithm: aaKeySpec(aa)).publicKey
                .subjectPublicKeyInfo
        case .chipAuthenticationKeyMismatch:
            guard let ca = spec.chipAuthentication else {
                throw GeneratorError(
                    .invalidInput, step: "forgery.ca", "profile \(spec.name) has no Chip Authentication")
            }
            caPublicKeyInfo = try chipAuthenticationKey(ca, slot: "chip/ca-other", cache: cache).1
        default: break
        }

        // 3. Data groups (ICAO 9303-10 §4.7).
        var files: [LDSFile: [UInt8]] = [:]
        files[.dg1] = LDSEncoders.dg1(mrz: specimen.mrz)
        files[.dg2] = LDSEncoders.dg2(
            targetSize: options.dg2Size ?? spec.defaultDG2Size, format: options.faceFormat ?? spec.faceFormat)
        files[.dg11] = LDSEncoders.dg11(specimen, proofOfCitizenship: LDSEncoders.documentImage(seed: 1))
        files[.dg12] = LDSEncoders.dg12(
            specimen, frontImage: LDSEncoders.documentImage(seed: 2),
            rearImage: LDSEncoders.documentImage(seed: 3))
        files[.dg5] = LDSEncoders.displayedImages(.dg5, images: [LDSEncoders.displayedPortrait()])
        files[.dg7] = LDSEncoders.displayedImages(.dg7, images: [LDSEncoders.displayedSignature()])
        if !specimen.personsToNotify.isEmpty { files[.dg16] = LDSEncoders.dg16(specimen) }
        for (file, bytes) in options.replacedDataGroups { files[file] = bytes }
        var dg14Infos: [[UInt8]] = []
        var caInfos: [[UInt8]] = []
        if let ca = spec.chipAuthentication, let spki = caPublicKeyInfo {
            caInfos = [
                SecurityInfoEncoder.chipAuthenticationInfo(
                    keyAgreement: ca.keyAgreement, cipher: ca.cipher, keyId: ca.keyId),
                SecurityInfoEncoder.chipAuthenticationPublicKeyInfo(
                    keyAgreement: ca.keyAgreement,
                    subjectPublicKeyInfo: spki, keyId: ca.keyId),
            ]
            dg14Infos += caInfos
        }
        if case .ecdsa(_, let hash) = spec.activeAuthentication {
            dg14Infos.append(SecurityInfoEncoder.activeAuthenticationInfo(hash: hash))
        }
        var paceInfos: [[UInt8]] = []
        if let pace = spec.pace {
            paceInfos.append(
                SecurityInfoEncoder.paceInfo(
                    mapping: pace.mapping, keyAgreement: pace.keyAgreement,
                    cipher: pace.cipher, parameterId: pace.parameterId))
            if pace.alsoGenericMapping && pace.mapping != .generic {
                paceInfos.append(
                    SecurityInfoEncoder.paceInfo(
                        mapping: .generic, keyAgreement: pace.keyAgreement,
                        cipher: pace.cipher, parameterId: pace.parameterId))
            }
            dg14Infos += paceInfos
        }
        if !dg14Infos.isEmpty { files[.dg14] = LDSEncoders.dg14(securityInfos: dg14Infos) }
        if let spki = aaPublicKeyInfo { files[.dg15] = LDSEncoders.dg15(subjectPublicKeyInfo: spki) }
        let dataGroups = files.keys.filter { $0.dataGroupNumber != nil }
        files[.com] = LDSEncoders.com(dataGroups: Array(dataGroups))

        // 4. EF.SOD (ICAO 9303-10 §4.6.2).
        var hashes = LDSSecurityObjectEncoder.hashes(of: files, hashAlgorithm: options.dataGroupHash)
        if forgery == .dataGroupMissingFromSOD { hashes[11] = nil }
        let securityObject = LDSSecurityObjectEncoder.encode(
            hashes: hashes, hashAlgorithm: options.dataGroupHash,
            versionInfo: options.ldsVersionInfo)
        files[.sod] = try LDSSecurityObjectEncoder.sod(
            securityObject: securityObject, signer: ds.signer, signingTime: signingTime,
            signerIdentification: options.signerIdentification)

        // 5. EF.CardAccess and EF.CardSecurity (ICAO 9303-11 §9.2, BSI TR-03110-3 §A.1.2).
        if !paceInfos.isEmpty { files[.cardAccess] = SecurityInfoEncoder.securityInfos(paceInfos) }
        if spec.cardSecurity {
            // EF.CardSecurity carries the genuine chip key even for the DG14 forgery: only DG14 is forged.
            var csInfos = paceInfos
            if let ca = spec.chipAuthentication, let key = chipKeys.chipAuthentication {
                let spki = try publicKeyInfo(of: key, explicit: ca.explicitParameters)
                csInfos += [
                    SecurityInfoEncoder.chipAuthenticationInfo(
                        keyAgreement: ca.keyAgreement, cipher: ca.cipher, keyId: ca.keyId),
                    SecurityInfoEncoder.chipAuthenticationPublicKeyInfo(
                        keyAgreement: ca.keyAgreement,
                        subjectPublicKeyInfo: spki, keyId: ca.keyId),
                ]
            }
            let cardSecurity = SignedDataBuilder(
                eContentType: CMSContentType.securityObject, eContent: SecurityInfoEncoder.securityInfos(csInfos),
                signatureAlgorithm: ds.algorithm.signatureAlgorithm,
                signerCertificate: ds.info, signerIdentification: options.signerIdentification,
                signingTime: signingTime)
            files[.cardSecurity] = try withCrypto("cardSecurity.sign") { () throws(CryptoError) in
                try cardSecurity.build(signerKey: ds.privateKey)
            }
        }

        // 6. Forgeries applied after signing.
        if forgery == .dataGroupModified {
            var forged = specimen
            forged.surname = "MUSTERMANN"
            files[.dg1] = LDSEncoders.dg1(mrz: forged.mrz)
        }

        // EF.CardAccess is not signed: a hostile chip offers less in it than DG14 lists (a downgrade).
        switch forgery {
        case .cardAccessWithheld:
            files[.cardAccess] = nil
        case .cardAccessGarbled:
            if files[.cardAccess] != nil {
                files[.cardAccess] = [0x31, 0x0A, 0x30, 0x0F] + Array(repeating: 0xA5, count: 8)
            }
        case .cardAccessTripleDESOnly:
            guard let pace = spec.pace, pace.mapping != .chipAuthentication else {
                throw GeneratorError(
                    .invalidInput, step: "forgery.cardAccess", "profile \(spec.name) has no PACE that runs with 3DES")
            }
            files[.cardAccess] = SecurityInfoEncoder.securityInfos([
                SecurityInfoEncoder.paceInfo(
                    mapping: pace.mapping, keyAgreement: pace.keyAgreement, cipher: .tripleDES,
                    parameterId: pace.parameterId)
            ])
        default: break
        }

        // 7. Trust material.
        let crl = try pki.crl(revoking: forgery == .revokedSigner ? [ds.info] : [])
        let masterList = try pki.masterList(certificates: [trustedCSCA.der])

        let profile = DocumentProfile(
            name: forgery.map { "\(spec.name)+\($0.rawValue)" } ?? spec.name, files: files,
            documentNumber: specimen.documentNumber, dateOfBirth: specimen.dateOfBirth,
            dateOfExpiry: specimen.dateOfExpiry, can: specimen.can, mrz: specimen.mrz,
            supportsBAC: spec.supportsBAC, keys: chipKeys, link: spec.link)
        return GeneratedDocument(
            profile: profile, cscaCertificate: trustedCSCA.der, documentSignerCertificate: ds.der,
            crl: crl, masterList: masterList, masterListSignerCertificate: pki.masterListSigner.der,
            pki: signingPKI, forgery: forgery, signingTime: signingTime, spec: spec)
    }

    static func aaKeySpec(_ aa: ProfileSpec.ActiveAuthentication) -> GeneratorKeyCache.KeySpec {
        switch aa {
        case .rsa(let bits): return .rsa(bits: bits)
        case .ecdsa(let curve, _): return .ec(curve)
        }
    }

    /// The chip's static CA key and its SubjectPublicKeyInfo for DG14 (ICAO 9303-11 §9.2).
    static func chipAuthenticationKey(
        _ ca: ProfileSpec.ChipAuthentication, slot: String,
        cache: GeneratorKeyCache
    ) throws(GeneratorError) -> (ChipAuthenticationKey, [UInt8]) {
        switch ca.group {
        case .ec(let curve, let parameterId):
            let key = try cache.key(slot: slot, algorithm: .ec(curve))
            let ecCurve = ECCurve(named: curve)
            guard let scalar = key.ecPrivateScalar, let point = key.publicKey.ecPoint else {
                throw GeneratorError(.crypto, step: "ca.key", "EC key without scalar or point")
            }
            let spki = SubjectPublicKeyInfoEncoder.encode(key.publicKey, explicitParameters: ca.explicitParameters)
            return (
                ChipAuthenticationKey(
                    agreement: .ecdh(curve: ecCurve, privateKey: scalar, publicKey: point),
                    keyId: ca.keyId, parameterId: parameterId), spki
            )
        case .dh(let groupID):
            let group = DHGroup(groupID)
            let pair = try DHKeyCache.shared.key(slot: slot, group: group)
            return (
                ChipAuthenticationKey(
                    agreement: .dh(group: group, privateKey: pair.privateKey, publicKey: pair.publicKey),
                    keyId: ca.keyId, parameterId: groupID.rawValue),
                SubjectPublicKeyInfoEncoder.dh(publicKey: pair.publicKey, group: group)
            )
        }
    }

    /// SubjectPublicKeyInfo of a chip CA key.
    static func publicKeyInfo(of key: ChipAuthenticationKey, explicit: Bool) throws(GeneratorError) -> [UInt8] {
        switch key.agreement {
        case .ecdh(let curve, _, let point):
            if explicit { return SubjectPublicKeyInfoEncoder.explicitEC(point: point, curve: curve) }
            return try withCrypto("ca.publicKey") { () throws(CryptoError) -> [UInt8] in
                try PublicKey(ecPoint: point, curve: curve).subjectPublicKeyInfo
            }
        case .dh(let group, _, let y):
            return SubjectPublicKeyInfoEncoder.dh(publicKey: y, group: group)
        }
    }
}

/// Process-wide cache of DH key pairs for Chip Authentication.
final class DHKeyCache: Sendable {
    static let shared = DHKeyCache()
    private let pairs = LockedCache<(privateKey: SecretBytes, publicKey: [UInt8])>()

    func key(slot: String, group: DHGroup) throws(GeneratorError) -> (privateKey: SecretBytes, publicKey: [UInt8]) {
        let id = "\(slot)#\(group.primeSize)"
        if let p = pairs.value(id) { return p }
        let pair = try withCrypto("dh.generate") {
            () throws(CryptoError) -> (privateKey: SecretBytes, publicKey: [UInt8]) in
            try group.generateKeyPair(random: SystemRandom())
        }
        return pairs.insert(id, pair)
    }
}

extension GeneratedDocument: CustomStringConvertible {
    /// Names the profile only: no MRZ, CAN or key material.
    public var description: String {
        "GeneratedDocument(\(profile.name), \(profile.files.count) files\(forgery.map { ", forgery \($0.rawValue)" } ?? ""))"
    }
}
