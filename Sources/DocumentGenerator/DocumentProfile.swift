public import MRTDCrypto
public import MRTDDocument

/// Everything a virtual eMRTD chip is: its files, its access-control secrets, its keys and how its
/// link behaves. Produced by `SpecimenGenerator` and `ProfileStore`, served by the `VirtualChip` module.
///
/// The files are stored byte for byte as the chip serves them (EF.SOD, DG1, …, EF.CardAccess,
/// EF.CardSecurity). The chip does not re-derive them: a forged profile is just different bytes.
public struct DocumentProfile: Sendable {
    /// A short name ("pace-gm-brainpool-aes128", "bac", …).
    public var name: String
    /// Files in the LDS1 application and in the master file (CardAccess, CardSecurity, ATRInfo).
    public var files: [LDSFile: [UInt8]]
    /// The MRZ access key: document number (as on the MRZ, fillers removed or kept — the chip compares
    /// the derived key), date of birth YYMMDD, date of expiry YYMMDD.
    public var documentNumber: String
    public var dateOfBirth: String
    public var dateOfExpiry: String
    /// The card access number printed on the card (PACE with CAN), 6 digits.
    public var can: String
    /// The full MRZ text (all lines concatenated), for `emrtd demo` to present as a kiosk scanner would.
    public var mrz: String

    /// Basic Access Control available (true for most passports; false for PACE-only cards).
    public var supportsBAC: Bool

    /// Chip-side keys.
    public var keys: ChipKeys
    /// How the chip's link behaves.
    public var link: LinkBehaviour

    public init(
        name: String, files: [LDSFile: [UInt8]], documentNumber: String, dateOfBirth: String,
        dateOfExpiry: String, can: String, mrz: String, supportsBAC: Bool, keys: ChipKeys,
        link: LinkBehaviour
    ) {
        self.name = name
        self.files = files
        self.documentNumber = documentNumber
        self.dateOfBirth = dateOfBirth
        self.dateOfExpiry = dateOfExpiry
        self.can = can
        self.mrz = mrz
        self.supportsBAC = supportsBAC
        self.keys = keys
        self.link = link
    }
}

/// The chip's private keys. PACE needs no static key (its parameters come from EF.CardAccess);
/// PACE-CAM and Chip Authentication use `chipAuthentication`; Active Authentication uses `activeAuthentication`.
public struct ChipKeys: Sendable {
    /// Chip Authentication key pair (its public key is in DG14 and EF.CardSecurity), with its key id if DG14 lists one.
    public var chipAuthentication: ChipAuthenticationKey?
    /// Active Authentication private key (its public key is in DG15).
    public var activeAuthentication: PrivateKey?

    public init(chipAuthentication: ChipAuthenticationKey? = nil, activeAuthentication: PrivateKey? = nil) {
        self.chipAuthentication = chipAuthentication
        self.activeAuthentication = activeAuthentication
    }
}

/// A Chip Authentication static key: ECDH (a curve and private scalar) or DH (a group and private exponent).
public struct ChipAuthenticationKey: Sendable {
    public enum Agreement: Sendable {
        case ecdh(curve: ECCurve, privateKey: SecretBytes, publicKey: [UInt8])
        case dh(group: DHGroup, privateKey: SecretBytes, publicKey: [UInt8])
    }
    public var agreement: Agreement
    /// keyId of ChipAuthenticationInfo / ChipAuthenticationPublicKeyInfo, when present.
    public var keyId: Int?
    /// Standardized domain parameter id when the key uses one (for PACE-CAM EF.CardSecurity).
    public var parameterId: Int?

    public init(agreement: Agreement, keyId: Int? = nil, parameterId: Int? = nil) {
        self.agreement = agreement
        self.keyId = keyId
        self.parameterId = parameterId
    }
}

/// Link behaviour of the virtual chip: what a real chip's quirks would be.
public struct LinkBehaviour: Sendable, Hashable {
    /// The chip accepts extended-length APDUs.
    public var extendedLength: Bool
    /// The chip answers READ BINARY with short file identifiers.
    public var supportsSFI: Bool
    /// Largest response data field the chip returns in one READ BINARY (plain bytes before SM);
    /// `nil` = as much as Ne and the APDU form allow.
    public var maxReadLength: Int?
    /// The chip refuses MSE:Set AT for PACE without the parameter-id DO'84' when EF.CardAccess lists one.
    public var requiresParameterIdInMSE: Bool
    /// ATR bytes.
    public var atr: [UInt8]

    public init(
        extendedLength: Bool = true, supportsSFI: Bool = true, maxReadLength: Int? = nil,
        requiresParameterIdInMSE: Bool = false,
        atr: [UInt8] = [0x3B, 0x88, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09]
    ) {
        self.extendedLength = extendedLength
        self.supportsSFI = supportsSFI
        self.maxReadLength = maxReadLength
        self.requiresParameterIdInMSE = requiresParameterIdInMSE
        self.atr = atr
    }
}
