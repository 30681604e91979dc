public import ISO7816
public import MRTDCrypto
public import MRTDSecureMessaging

/// Basic Access Control (ICAO 9303-11 §4.3: protocol §4.3.1, cryptography §4.3.3, APDUs §4.3.4; keys
/// §9.7.1–§9.7.2 and §9.7.4; SSC §9.8.6.3; worked example Appendix D.1–D.3).
///
/// Pure steps named after the specification plus `perform`, the thin driver over a `CardTransport`.
public enum BAC {
    /// Kenc and Kmac derived from the MRZ key seed (9303-11 §9.7.2, Appendix D.2).
    public struct BasicAccessKeys: Sendable, Hashable {
        public var keySeed: SecretBytes
        public var encryption: SecretBytes
        public var mac: SecretBytes
    }

    /// The terminal's EXTERNAL AUTHENTICATE cryptogram (9303-11 §4.3.1 steps 2–3, §4.3.3; Appendix D.3).
    public struct TerminalCryptogram: Sendable {
        /// S = RND.IFD || RND.IC || K.IFD
        public var s: SecretBytes
        /// E_IFD = E(Kenc, S)
        public var eIFD: [UInt8]
        /// M_IFD = MAC(Kmac, E_IFD)
        public var mIFD: [UInt8]
        /// The command data E_IFD || M_IFD.
        public var commandData: [UInt8] { eIFD + mIFD }
    }

    /// The chip's answer after its MAC verified and it was decrypted (§4.3.1 step 4–5; Appendix D.3).
    public struct ChipResponse: Sendable {
        /// R = RND.IC || RND.IFD || K.IC
        public var r: SecretBytes
        public var kIC: SecretBytes
    }

    /// The outcome of BAC: session keys and the initial send sequence counter.
    public struct Result: Sendable {
        public var sessionKeys: SessionKeys
        /// KSseed = K.IFD xor K.IC
        public var keySeed: SecretBytes
        /// SSC = RND.IC[4..7] || RND.IFD[4..7]
        public var ssc: SecretBytes
        public var session: SecureMessagingSession { SecureMessagingSession(keys: sessionKeys, ssc: ssc.bytes) }
    }

    /// Kseed → Kenc = KDF(Kseed, 1), Kmac = KDF(Kseed, 2), 3DES keys with DES parity adjusted (§9.7.1.1, §9.7.2).
    public static func deriveKeys(_ key: MRZKey) -> BasicAccessKeys {
        let seed = key.bacKeySeed
        return BasicAccessKeys(
            keySeed: seed,
            encryption: KDF.derive(seed.bytes, counter: KDF.encryptionCounter, cipher: .tripleDES),
            mac: KDF.derive(seed.bytes, counter: KDF.macCounter, cipher: .tripleDES))
    }

    /// Builds E_IFD || M_IFD from the chip's challenge and the terminal's random RND.IFD and K.IFD (§4.3.1, §4.3.3).
    public static func terminalCryptogram(
        rndIC: [UInt8], rndIFD: [UInt8], kIFD: [UInt8],
        keys: BasicAccessKeys
    ) throws(AccessControlError) -> TerminalCryptogram {
        guard rndIC.count == 8, rndIFD.count == 8, kIFD.count == 16 else {
            throw AccessControlError(
                .invalidInput, step: AccessControlStep.externalAuthenticate,
                "RND.IC and RND.IFD must be 8 bytes and K.IFD 16 bytes")
        }
        let s = rndIFD + rndIC + kIFD
        do {
            let e = try TripleDES.encryptCBC(key: keys.encryption, s)
            let m = try RetailMAC.mac(key: keys.mac, e)
            return TerminalCryptogram(s: SecretBytes(s), eIFD: e, mIFD: m)
        } catch {
            throw AccessControlError(.cryptoFailure, step: AccessControlStep.externalAuthenticate, error.description)
        }
    }

    /// Checks the chip's MAC (constant time), decrypts E_IC and checks that RND.IFD came back (§4.3.1, §4.3.4.2).
    /// A MAC mismatch means the chip holds different keys: a wrong MRZ.
    public static func processChipResponse(
        _ data: [UInt8], rndIC: [UInt8], rndIFD: [UInt8],
        keys: BasicAccessKeys
    ) throws(AccessControlError) -> ChipResponse {
        let step = AccessControlStep.externalAuthenticate
        guard data.count == 40 else {
            throw AccessControlError(
                .malformedResponse, step: step, "the chip answered \(data.count) bytes, expected 40 (E_IC || M_IC)")
        }
        let e = Array(data[0..<32])
        let m = Array(data[32..<40])
        do {
            let expected = try RetailMAC.mac(key: keys.mac, e)
            guard ConstantTime.equals(expected, m) else {
                throw AccessControlError(
                    .wrongPassword, step: step,
                    "the chip's cryptogram MAC does not verify (MAC mismatch: wrong MRZ?)")
            }
            let r = try TripleDES.decryptCBC(key: keys.encryption, e)
            guard ConstantTime.equals(Array(r[0..<8]), rndIC), ConstantTime.equals(Array(r[8..<16]), rndIFD) else {
                throw AccessControlError(
                    .authenticationFailed, step: step, "the chip did not return the challenges it was given")
            }
            return ChipResponse(r: SecretBytes(r), kIC: SecretBytes(Array(r[16..<32])))
        } catch let e as AccessControlError {
            throw e
        } catch {
            throw AccessControlError(.cryptoFailure, step: step, "\(error)")
        }
    }

    /// KSseed = K.IFD xor K.IC; KSenc/KSmac = KDF(KSseed, 1/2); SSC = RND.IC[4..7] || RND.IFD[4..7] (§4.3.1, §9.7.4, §9.8.6.3).
    public static func sessionKeys(kIFD: [UInt8], kIC: [UInt8], rndIC: [UInt8], rndIFD: [UInt8]) -> Result {
        let seed = zip(kIFD, kIC).map { $0 ^ $1 }
        let keys = SessionKeys(
            cipher: .tripleDES,
            encryption: KDF.derive(seed, counter: KDF.encryptionCounter, cipher: .tripleDES),
            mac: KDF.derive(seed, counter: KDF.macCounter, cipher: .tripleDES))
        return Result(
            sessionKeys: keys, keySeed: SecretBytes(seed),
            ssc: SecretBytes(Array(rndIC[4..<8]) + Array(rndIFD[4..<8])))
    }

    /// Runs BAC over `transport`: GET CHALLENGE, EXTERNAL AUTHENTICATE, session keys.
    /// Random draws, in order: RND.IFD (8 bytes), K.IFD (16 bytes).
    /// Throws `AccessControlError` (step "GET CHALLENGE" / "EXTERNAL AUTHENTICATE") or the transport's error.
    public static func perform(
        transport: any CardTransport, key: MRZKey,
        random: any RandomSource = SystemRandom()
    ) async throws -> Result {
        let send: APDUSend = { try await transport.transmit($0) }
        let keys = deriveKeys(key)
        let challenge = try await Exchange.expectSuccess(
            send, .getChallenge(length: 8), step: AccessControlStep.getChallenge)
        guard challenge.data.count == 8 else {
            throw AccessControlError(
                .malformedResponse, step: AccessControlStep.getChallenge,
                "the chip returned \(challenge.data.count) challenge bytes, expected 8")
        }
        let rndIC = challenge.data
        let rndIFD = random.randomBytes(count: 8)
        let kIFD = random.randomBytes(count: 16)
        let cryptogram = try terminalCryptogram(rndIC: rndIC, rndIFD: rndIFD, kIFD: kIFD, keys: keys)
        let answer = try await Exchange.expectSuccess(
            send, .externalAuthenticate(cryptogram.commandData, ne: 40),
            step: AccessControlStep.externalAuthenticate, wrongPasswordOn63: true)
        let chip = try processChipResponse(answer.data, rndIC: rndIC, rndIFD: rndIFD, keys: keys)
        return sessionKeys(kIFD: kIFD, kIC: chip.kIC.bytes, rndIC: rndIC, rndIFD: rndIFD)
    }
}
