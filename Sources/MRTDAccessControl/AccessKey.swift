public import MRTDCrypto
import MRTDDocument

/// The MRZ fields that form the BAC/PACE password (ICAO 9303-11 §9.7.2 / §4.3.2 "MRZ_information"):
/// document number + check digit, date of birth + check digit, date of expiry + check digit.
///
/// Document numbers longer than nine characters follow the TD1 rule of 9303-11 Appendix D.2: the full
/// number and the check digit computed over the full number. Never printed (`description` is redacted).
public struct MRZKey: Sendable, Hashable, CustomStringConvertible {
    public let documentNumber: String
    public let dateOfBirth: String
    public let dateOfExpiry: String

    /// Document number (fillers '<' allowed, padded to 9), dates as YYMMDD.
    public init(documentNumber: String, dateOfBirth: String, dateOfExpiry: String) throws(AccessControlError) {
        let doc = documentNumber.uppercased().filter { $0 != " " }
        func bad(_ what: String) -> AccessControlError {
            AccessControlError(.invalidInput, step: AccessControlStep.password, "\(what) is not valid MRZ text")
        }
        guard !doc.isEmpty, MRZCheckDigit.compute(doc) != nil else { throw bad("the document number") }
        for (d, name) in [(dateOfBirth, "the date of birth"), (dateOfExpiry, "the date of expiry")] {
            guard d.count == 6, d.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw bad(name) }
        }
        // Strip trailing fillers beyond the 9-character field, then pad to 9.
        var n = doc
        while n.count > 9 && n.hasSuffix("<") { n.removeLast() }
        if n.count < 9 { n += String(repeating: "<", count: 9 - n.count) }
        self.documentNumber = n
        self.dateOfBirth = dateOfBirth
        self.dateOfExpiry = dateOfExpiry
    }

    /// Reads the key fields from a machine readable zone (TD1, TD2, TD3 or a visa), given as lines or
    /// concatenated, with MRTDDocument's MRZ parser, and checks the printed check digits of the three fields
    /// (the TD1/TD2 long document number rule included).
    public init(mrz text: String) throws(AccessControlError) {
        func bad(_ r: String) -> AccessControlError {
            AccessControlError(.invalidInput, step: AccessControlStep.password, r)
        }
        let parsed: MRZ
        do { parsed = try MRZ(text) } catch {
            throw bad(error.reason)
        }
        let names: [MRZCheck.Field: String] = [
            .documentNumber: "document number", .dateOfBirth: "date of birth",
            .dateOfExpiry: "date of expiry",
        ]
        for field in [MRZCheck.Field.documentNumber, .dateOfBirth, .dateOfExpiry] {
            guard let check = parsed.check(field), check.isValid else {
                throw bad("the check digit of the \(names[field]!) does not match")
            }
        }
        let key = parsed.keyInfo
        try self.init(documentNumber: key.documentNumber, dateOfBirth: key.dateOfBirth, dateOfExpiry: key.dateOfExpiry)
    }

    /// MRZ_information: number || cd || birth || cd || expiry || cd (ICAO 9303-11 §9.7.2, Appendix D.2).
    public var mrzInformation: String {
        func cd(_ s: String) -> String { String(MRZCheckDigit.character(s) ?? "0") }
        return documentNumber + cd(documentNumber) + dateOfBirth + cd(dateOfBirth) + dateOfExpiry + cd(dateOfExpiry)
    }

    /// SHA-1(MRZ_information): the BAC key-seed source and PACE's f(π) for the MRZ password (9303-11 §9.7.3).
    public var sha1: SecretBytes { SecretBytes(HashAlgorithm.sha1.hash(Array(mrzInformation.utf8))) }

    /// Kseed = the first 16 bytes of SHA-1(MRZ_information) (ICAO 9303-11 §9.7.2).
    public var bacKeySeed: SecretBytes { SecretBytes(Array(sha1.bytes.prefix(16))) }

    public var description: String { "MRZKey(redacted)" }
}

/// The PACE password reference (ICAO 9303-11 §9.7.3 / BSI TR-03110-3 D.2.1.1, DO'83' of MSE:Set AT).
public enum PACEPasswordType: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case mrz = 1, can = 2, pin = 3, puk = 4
    public var description: String {
        switch self {
        case .mrz: "MRZ"
        case .can: "CAN"
        case .pin: "PIN"
        case .puk: "PUK"
        }
    }
}

/// What the holder gives to open the chip. Never printed (`description` is redacted).
public enum AccessKey: Sendable, Hashable, CustomStringConvertible {
    case mrz(MRZKey)
    case can(String)
    case pin(String)
    case puk(String)

    public var passwordType: PACEPasswordType {
        switch self {
        case .mrz: .mrz
        case .can: .can
        case .pin: .pin
        case .puk: .puk
        }
    }

    /// f(π) of ICAO 9303-11 §9.7.3: SHA-1(MRZ_information) for the MRZ, the ISO 8859-1 bytes otherwise.
    public var passwordBytes: SecretBytes {
        switch self {
        case .mrz(let k): return k.sha1
        case .can(let s), .pin(let s), .puk(let s): return SecretBytes(Array(s.utf8))
        }
    }

    /// K_π = KDF(f(π), 3) (ICAO 9303-11 §9.7.3) for the cipher of the PACE protocol.
    public func paceKey(cipher: CipherAlgorithm) -> SecretBytes {
        KDF.derive(passwordBytes.bytes, counter: KDF.passwordCounter, cipher: cipher)
    }

    public var description: String { "AccessKey(\(passwordType), redacted)" }
}
