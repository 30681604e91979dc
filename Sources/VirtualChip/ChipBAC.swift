import DocumentGenerator
import ISO7816
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging

/// The document's access keys derived from its MRZ and CAN (ICAO 9303-11 §9.7.2 and §4.4.4.1).
enum ChipPasswords {
    /// MRZ_information: document number (padded with '<' to at least 9 characters) + check digit,
    /// date of birth + check digit, date of expiry + check digit (ICAO 9303-11 §9.7.2; a longer
    /// document number is used in full, as in D.2).
    static func mrzInformation(_ profile: DocumentProfile) -> [UInt8] {
        var number = profile.documentNumber.uppercased().filter { $0 != " " }
        while number.hasSuffix("<") { number.removeLast() }
        while number.count < 9 { number.append("<") }
        let dob = profile.dateOfBirth
        let doe = profile.dateOfExpiry
        let text = number + cd(number) + dob + cd(dob) + doe + cd(doe)
        return Array(text.utf8)
    }

    private static func cd(_ s: String) -> String {
        MRZCheckDigit.character(s).map { String($0) } ?? "0"
    }

    /// K_seed = SHA-1(MRZ_information)[0..16] (BAC, ICAO 9303-11 §9.7.2).
    static func bacKeySeed(_ profile: DocumentProfile) -> [UInt8] {
        Array(HashAlgorithm.sha1.hash(mrzInformation(profile)).prefix(16))
    }

    /// The shared secret π of PACE (ICAO 9303-11 §4.4.4.1): SHA-1(MRZ_information) or the CAN as ASCII.
    static func pacePassword(_ profile: DocumentProfile, _ reference: PACEPassword) -> [UInt8] {
        switch reference {
        case .mrz: return HashAlgorithm.sha1.hash(mrzInformation(profile))
        case .can: return Array(profile.can.utf8)
        }
    }
}

/// Basic Access Control, chip side (ICAO 9303-11 §4.3 and Appendix D).
extension ChipEngine {
    /// GET CHALLENGE (ISO/IEC 7816-4 §11.5.3): RND.IC of Ne bytes (8 for BAC).
    mutating func getChallenge(_ command: CommandAPDU) throws(ChipFailure) -> ResponseAPDU {
        guard command.p1 == 0, command.p2 == 0 else { throw .incorrectP1P2 }
        guard command.data.isEmpty, let ne = command.ne, ne <= 256 else { throw .wrongLength }
        let rnd = randomBytes(ne)
        challenge = ne == 8 ? rnd : nil
        return ResponseAPDU(data: rnd, statusWord: .success)
    }

    /// EXTERNAL AUTHENTICATE for BAC (ICAO 9303-11 §4.3.4.1, D.3): verifies M_IFD = MAC(K_MAC, E_IFD),
    /// decrypts S = RND.IFD || RND.IC || K.IFD, checks RND.IC, answers E_IC || M_IC with
    /// R = RND.IC || RND.IFD || K.IC, and starts 3DES secure messaging with
    /// KS_seed = K.IFD ⊕ K.IC and SSC = RND.IC[4..8] || RND.IFD[4..8]. Failure: 6300.
    mutating func externalAuthenticate(_ command: CommandAPDU, protected: Bool) throws(ChipFailure) -> ResponseAPDU {
        guard profile.supportsBAC, !protected else { throw .insNotSupported }
        guard command.p1 == 0, command.p2 == 0 else { throw .incorrectP1P2 }
        guard command.data.count == 40 else { throw .wrongLength }
        guard let rndIC = challenge else { throw .conditionsOfUse }
        challenge = nil

        let seed = ChipPasswords.bacKeySeed(profile)
        let kEnc = KDF.derive(seed, counter: KDF.encryptionCounter, cipher: .tripleDES)
        let kMac = KDF.derive(seed, counter: KDF.macCounter, cipher: .tripleDES)
        let eIFD = Array(command.data[0..<32])
        let mIFD = Array(command.data[32..<40])
        do {
            let mac = try RetailMAC.mac(key: kMac, eIFD)
            guard ConstantTime.equals(mac, mIFD) else { throw ChipFailure.authenticationFailed }
            let s = try TripleDES.decryptCBC(key: kEnc, eIFD)
            guard ConstantTime.equals(Array(s[8..<16]), rndIC) else { throw ChipFailure.authenticationFailed }
            let rndIFD = Array(s[0..<8])
            let kIFD = Array(s[16..<32])
            let kIC = randomBytes(16)
            let r = rndIC + rndIFD + kIC
            let eIC = try TripleDES.encryptCBC(key: kEnc, r)
            let mIC = try RetailMAC.mac(key: kMac, eIC)
            let ksSeed = zip(kIFD, kIC).map { $0 ^ $1 }
            let keys = SessionKeys.derive(sharedSecret: ksSeed, cipher: .tripleDES)
            let ssc = Array(rndIC[4..<8]) + Array(rndIFD[4..<8])
            session = SecureMessagingSession(keys: keys, ssc: ssc)
            access = .bac
            chipAuthenticated = false
            pace = .idle
            return ResponseAPDU(data: eIC + mIC, statusWord: .success)
        } catch let failure as ChipFailure {
            throw failure
        } catch {
            throw .authenticationFailed
        }
    }
}
