import ASN1TLV
public import MRTDCrypto
public import MRTDDocument

/// What a named document profile contains: access control, chip authentication, active authentication, link.
public struct ProfileSpec: Sendable, Hashable {
    /// PACE as listed in EF.CardAccess (ICAO 9303-11 §4.4, §9.2).
    public struct PACE: Sendable, Hashable {
        public var mapping: SecurityInfoEncoder.Mapping
        public var keyAgreement: SecurityInfoEncoder.KeyAgreement
        public var cipher: CipherAlgorithm
        /// Standardized domain parameter id (ICAO 9303-11 §9.5.1): 0 = 1024-bit MODP (RFC 5114), 12 = P-256,
        /// 13 = brainpoolP256r1, …
        public var parameterId: Int
        /// Also list PACE-GM with the same parameters (CAM chips normally offer GM too).
        public var alsoGenericMapping: Bool
        public init(
            mapping: SecurityInfoEncoder.Mapping, keyAgreement: SecurityInfoEncoder.KeyAgreement,
            cipher: CipherAlgorithm, parameterId: Int, alsoGenericMapping: Bool = false
        ) {
            self.mapping = mapping
            self.keyAgreement = keyAgreement
            self.cipher = cipher
            self.parameterId = parameterId
            self.alsoGenericMapping = alsoGenericMapping
        }
    }

    /// Chip Authentication (ICAO 9303-11 §6.2): the static key in DG14 (and EF.CardSecurity for PACE-CAM).
    public struct ChipAuthentication: Sendable, Hashable {
        public enum Group: Sendable, Hashable {
            case ec(NamedCurve, parameterId: Int?)
            case dh(DHGroup.RFC5114)
        }
        public var group: Group
        public var cipher: CipherAlgorithm
        /// Encode the EC public key with explicit domain parameters (as German documents do).
        public var explicitParameters: Bool
        public var keyId: Int?
        public init(group: Group, cipher: CipherAlgorithm, explicitParameters: Bool = false, keyId: Int? = nil) {
            self.group = group
            self.cipher = cipher
            self.explicitParameters = explicitParameters
            self.keyId = keyId
        }
        public var keyAgreement: SecurityInfoEncoder.KeyAgreement {
            if case .dh = group { return .dh }
            return .ecdh
        }
    }

    /// Active Authentication (ICAO 9303-11 §6.1): the key type in DG15.
    public enum ActiveAuthentication: Sendable, Hashable {
        /// RSA with ISO/IEC 9796-2 signatures.
        case rsa(bits: Int)
        /// ECDSA with plain signatures and the hash named in DG14's ActiveAuthenticationInfo.
        case ecdsa(NamedCurve, HashAlgorithm)
    }

    public var name: String
    public var summary: String
    public var specimen: Specimen
    public var supportsBAC: Bool
    public var pace: PACE?
    public var chipAuthentication: ChipAuthentication?
    public var activeAuthentication: ActiveAuthentication?
    /// Write EF.CardSecurity (needed for PACE-CAM).
    public var cardSecurity: Bool
    public var link: LinkBehaviour
    /// DG2 target size in bytes when the generator options do not say.
    public var defaultDG2Size: Int?
    /// How DG2 stores the face: `.jpeg2000` (a colour JP2 file, as most passports issued since about 2010) or
    /// `.jpeg` (grayscale baseline JPEG, as early BAC-era passports).
    public var faceFormat: ImageFormat

    public init(
        name: String, summary: String, specimen: Specimen = .utopiaPassport, supportsBAC: Bool, pace: PACE?,
        chipAuthentication: ChipAuthentication?, activeAuthentication: ActiveAuthentication?,
        cardSecurity: Bool = false, link: LinkBehaviour = LinkBehaviour(), defaultDG2Size: Int? = nil,
        faceFormat: ImageFormat = .jpeg2000
    ) {
        self.name = name
        self.summary = summary
        self.specimen = specimen
        self.supportsBAC = supportsBAC
        self.pace = pace
        self.chipAuthentication = chipAuthentication
        self.activeAuthentication = activeAuthentication
        self.cardSecurity = cardSecurity
        self.link = link
        self.defaultDG2Size = defaultDG2Size
        self.faceFormat = faceFormat
    }
}

extension ProfileSpec {
    /// The named profiles `emrtd demo --profile` and `emrtd simulate --profile` accept. The first is the default.
    public static let builtIn: [ProfileSpec] = [
        ProfileSpec(
            name: "pace-gm-brainpool-aes128",
            summary: "PACE-GM ECDH brainpoolP256r1 (id 13), AES-128; CA ECDH (explicit parameters); AA ECDSA; BAC too",
            supportsBAC: true,
            pace: PACE(mapping: .generic, keyAgreement: .ecdh, cipher: .aes128, parameterId: 13),
            chipAuthentication: ChipAuthentication(
                group: .ec(.brainpoolP256r1, parameterId: 13), cipher: .aes128,
                explicitParameters: true),
            activeAuthentication: .ecdsa(.brainpoolP256r1, .sha256),
            link: LinkBehaviour(requiresParameterIdInMSE: true)),
        ProfileSpec(
            name: "bac", summary: "BAC only (3DES); CA ECDH P-256 with 3DES; AA RSA-1024; a JPEG face",
            supportsBAC: true, pace: nil,
            chipAuthentication: ChipAuthentication(group: .ec(.secp256r1, parameterId: 12), cipher: .tripleDES),
            activeAuthentication: .rsa(bits: 1024),
            link: LinkBehaviour(extendedLength: false), faceFormat: .jpeg),
        ProfileSpec(
            name: "pace-gm-p256-aes256",
            summary: "PACE-GM ECDH NIST P-256 (id 12), AES-256; CA ECDH P-256 AES-256; AA RSA-1024",
            supportsBAC: true,
            pace: PACE(mapping: .generic, keyAgreement: .ecdh, cipher: .aes256, parameterId: 12),
            chipAuthentication: ChipAuthentication(group: .ec(.secp256r1, parameterId: 12), cipher: .aes256),
            activeAuthentication: .rsa(bits: 1024)),
        ProfileSpec(
            name: "pace-gm-dh-3des", summary: "PACE-GM DH 1024-bit MODP (id 0), 3DES; CA DH 3DES; AA RSA-1024",
            supportsBAC: true,
            pace: PACE(mapping: .generic, keyAgreement: .dh, cipher: .tripleDES, parameterId: 0),
            chipAuthentication: ChipAuthentication(group: .dh(.group1024_160), cipher: .tripleDES),
            activeAuthentication: .rsa(bits: 1024)),
        ProfileSpec(
            name: "pace-im-ecdh", summary: "PACE-IM ECDH brainpoolP256r1 (id 13), AES-128; CA ECDH; AA ECDSA",
            supportsBAC: true,
            pace: PACE(mapping: .integrated, keyAgreement: .ecdh, cipher: .aes128, parameterId: 13),
            chipAuthentication: ChipAuthentication(group: .ec(.brainpoolP256r1, parameterId: 13), cipher: .aes128),
            activeAuthentication: .ecdsa(.brainpoolP256r1, .sha256)),
        ProfileSpec(
            name: "pace-cam",
            summary: "PACE-CAM ECDH P-256 (id 12), AES-128, also GM; EF.CardSecurity with the CA key; no AA",
            supportsBAC: false,
            pace: PACE(
                mapping: .chipAuthentication, keyAgreement: .ecdh, cipher: .aes128, parameterId: 12,
                alsoGenericMapping: true),
            chipAuthentication: ChipAuthentication(group: .ec(.secp256r1, parameterId: 12), cipher: .aes128),
            activeAuthentication: nil, cardSecurity: true),
        ProfileSpec(
            name: "short-only", summary: "As pace-gm-brainpool-aes128, but the chip accepts short APDUs only",
            supportsBAC: true,
            pace: PACE(mapping: .generic, keyAgreement: .ecdh, cipher: .aes128, parameterId: 13),
            chipAuthentication: ChipAuthentication(group: .ec(.brainpoolP256r1, parameterId: 13), cipher: .aes128),
            activeAuthentication: .ecdsa(.brainpoolP256r1, .sha256),
            link: LinkBehaviour(extendedLength: false)),
        ProfileSpec(
            name: "extended", summary: "As pace-gm-p256-aes256, extended length, a 60 KB DG2",
            supportsBAC: true,
            pace: PACE(mapping: .generic, keyAgreement: .ecdh, cipher: .aes256, parameterId: 12),
            chipAuthentication: ChipAuthentication(group: .ec(.secp256r1, parameterId: 12), cipher: .aes256),
            activeAuthentication: .ecdsa(.secp256r1, .sha256),
            link: LinkBehaviour(extendedLength: true), defaultDG2Size: 60_000),
        ProfileSpec(
            name: "id-card-td1", summary: "TD1 identity card, PACE only (no BAC), PACE-GM P-256 AES-128, CA ECDH",
            specimen: .utopiaIDCard, supportsBAC: false,
            pace: PACE(mapping: .generic, keyAgreement: .ecdh, cipher: .aes128, parameterId: 12),
            chipAuthentication: ChipAuthentication(group: .ec(.secp256r1, parameterId: 12), cipher: .aes128),
            activeAuthentication: nil),
    ]

    public static func named(_ name: String) -> ProfileSpec? { builtIn.first { $0.name == name } }
}
