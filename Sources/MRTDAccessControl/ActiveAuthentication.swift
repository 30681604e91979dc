import ASN1TLV
public import ISO7816
public import MRTDCrypto
public import MRTDDocument
public import MRTDSecureMessaging

/// The message recovered from an ISO/IEC 9796-2 digital signature scheme 1 signature
/// (ISO/IEC 9796-2:2010 digital signature scheme 1, as ICAO 9303-11 §6.1.2.2 requires; Appendix F).
public struct ISO9796Recovery: Sendable, Hashable {
    /// The recovered message representative F = s^e mod n.
    public var f: [UInt8]
    /// Partial recovery (header '6x') or total recovery (header '4x').
    public var partialRecovery: Bool
    /// M1, the recoverable part of the message.
    public var m1: [UInt8]
    /// The hash value carried in F.
    public var digest: [UInt8]
    /// The hash named by the trailer.
    public var hash: HashAlgorithm
    /// The trailer: [BC] (implicit SHA-1) or [hash id, CC].
    public var trailer: [UInt8]
}

/// What a saved Active Authentication exchange needs to be re-checked offline.
public struct ActiveAuthenticationTranscript: Sendable, Hashable, Codable {
    public var challenge: [UInt8]
    public var signature: [UInt8]
    /// The DG15 SubjectPublicKeyInfo (DER, as read).
    public var publicKeyInfo: [UInt8]
    /// The signatureAlgorithm of DG14's ActiveAuthenticationInfo (needed for ECDSA keys).
    public var signatureAlgorithm: String?

    public init(challenge: [UInt8], signature: [UInt8], publicKeyInfo: [UInt8], signatureAlgorithm: String?) {
        self.challenge = challenge
        self.signature = signature
        self.publicKeyInfo = publicKeyInfo
        self.signatureAlgorithm = signatureAlgorithm
    }
}

/// The result of verifying an Active Authentication signature.
public struct ActiveAuthenticationVerification: Sendable, Hashable {
    public enum Scheme: String, Sendable, Hashable {
        case rsaISO9796_2 = "RSA ISO/IEC 9796-2 scheme 1", ecdsa = "ECDSA"
    }
    public var scheme: Scheme
    public var hash: HashAlgorithm
    /// True when the signature verifies over the challenge.
    public var verified: Bool
    /// For RSA: the recovered M1.
    public var recoveredMessage: [UInt8]?
}

/// Active Authentication (ICAO 9303-11 §6.1; worked example Appendix F): the chip signs an 8-byte
/// challenge with the private key whose public key is in DG15; pure verification plus a driver.
public enum ActiveAuthentication {
    static let step = AccessControlStep.activeAuthentication

    /// The DG15 public key: `6F L SubjectPublicKeyInfo` (ICAO 9303-11 §6.1.5; 9303-10 DG15).
    public static func publicKeyInfo(dg15 file: [UInt8]) throws(AccessControlError) -> [UInt8] {
        do {
            let node = try TLVParser.parse(file, rules: .ber)
            try node.expect(0x6F, "DG15")
            guard node.children.count == 1 else {
                throw AccessControlError(
                    .invalidInput, step: step,
                    "DG15 holds \(node.children.count) elements, expected one SubjectPublicKeyInfo")
            }
            return node.children[0].encodedBytes
        } catch let e as AccessControlError {
            throw e
        } catch {
            throw AccessControlError(.invalidInput, step: step, "DG15: \(error)")
        }
    }

    public static func publicKey(dg15 file: [UInt8]) throws(AccessControlError) -> PublicKey {
        let spki = try publicKeyInfo(dg15: file)
        let key: PublicKey
        do { key = try PublicKey(subjectPublicKeyInfo: spki) } catch {
            throw AccessControlError(.invalidInput, step: step, "DG15 public key: \(error.description)")
        }
        // docs/reliability.md, "Limits": AA keys are held to a smaller cap than other RSA keys
        if case .rsa(let bits) = key.kind, bits > LDSLimits.maxActiveAuthenticationRSABits {
            throw AccessControlError(
                .invalidInput, step: step,
                "DG15 RSA key of \(bits) bits exceeds the limit of "
                    + "\(LDSLimits.maxActiveAuthenticationRSABits) bits (LDSLimits.maxActiveAuthenticationRSABits)")
        }
        return key
    }

    /// INTERNAL AUTHENTICATE (§6.1.3) with the challenge, Le sized from the key: the modulus length (RSA) or
    /// 2 × field size (ECDSA plain r||s) — extended length when above 256.
    public static func internalAuthenticate(challenge: [UInt8], publicKey: PublicKey) -> CommandAPDU {
        .internalAuthenticate(challenge, ne: expectedSignatureLength(publicKey))
    }

    public static func expectedSignatureLength(_ key: PublicKey) -> Int {
        switch key.kind {
        case .rsa(let bits): return min(65536, (bits + 7) / 8)
        case .ec(let curve): return 2 * curve.fieldSize
        }
    }

    /// The trailer → hash table (ICAO 9303-11 §6.1.2.2; hash identifiers of ISO/IEC 10118-3): BC = option 1,
    /// SHA-1; option 2: 38CC SHA-224, 34CC SHA-256, 36CC SHA-384, 35CC SHA-512 (33CC SHA-1 also accepted).
    public static func hash(forTrailer id: UInt8) -> HashAlgorithm? {
        switch id {
        case 0x33: return .sha1
        case 0x38: return .sha224
        case 0x34: return .sha256
        case 0x36: return .sha384
        case 0x35: return .sha512
        default: return nil
        }
    }

    /// Parses a message representative F (ISO/IEC 9796-2 scheme 1): header nibble '6' (partial) or '4'
    /// (total), padding nibbles 'B…' ending in 'A', then M1, the hash and the trailer.
    public static func parseMessageRepresentative(_ fIn: [UInt8]) throws(AccessControlError) -> ISO9796Recovery {
        var f = fIn
        while f.first == 0 && f.count > 1 { f.removeFirst() }
        guard f.count >= 24 else {
            throw AccessControlError(.verificationFailed, step: step, "message representative too short")
        }
        let header = f[0] >> 4
        guard header == 0x6 || header == 0x4 else {
            throw AccessControlError(
                .verificationFailed, step: step,
                "message representative header is not ISO/IEC 9796-2 (wrong key or forged signature)")
        }
        // Padding nibbles: 'B'* then 'A'.
        var nibble = 1
        func nib(_ i: Int) -> UInt8 { i % 2 == 0 ? f[i / 2] >> 4 : f[i / 2] & 0x0F }
        while nibble < f.count * 2 && nib(nibble) == 0xB { nibble += 1 }
        guard nibble < f.count * 2, nib(nibble) == 0xA, nibble % 2 == 1 else {
            throw AccessControlError(.verificationFailed, step: step, "message representative padding is malformed")
        }
        let m1Start = (nibble + 1) / 2
        let hash: HashAlgorithm
        let trailer: [UInt8]
        if f.last == 0xBC {
            hash = .sha1
            trailer = [0xBC]
        } else if f.last == 0xCC, let h = ActiveAuthentication.hash(forTrailer: f[f.count - 2]) {
            hash = h
            trailer = [f[f.count - 2], 0xCC]
        } else {
            throw AccessControlError(.verificationFailed, step: step, "message representative trailer is unknown")
        }
        let digestEnd = f.count - trailer.count
        let digestStart = digestEnd - hash.outputLength
        guard digestStart >= m1Start else {
            throw AccessControlError(.verificationFailed, step: step, "message representative too short for its hash")
        }
        return ISO9796Recovery(
            f: f, partialRecovery: header == 0x6, m1: Array(f[m1Start..<digestStart]),
            digest: Array(f[digestStart..<digestEnd]), hash: hash, trailer: trailer)
    }

    /// RSA: recovers F = s^e mod n, checks its format and that H(M1 || challenge) equals the hash in F
    /// (ICAO 9303-11 §6.1.2.2, M = M1 || M2 with M2 the challenge).
    public static func verifyRSA(signature: [UInt8], challenge: [UInt8], publicKey: PublicKey)
        throws(AccessControlError) -> ActiveAuthenticationVerification
    {
        let f: [UInt8]
        do { f = try publicKey.rsaPublicOperation(signature) } catch {
            throw AccessControlError(
                .verificationFailed, step: step, "RSA public operation failed: \(error.description)")
        }
        return verifyMessageRepresentative(f, challenge: challenge)
    }

    /// The check on a recovered F: format per ISO/IEC 9796-2 scheme 1 and H(M1 || challenge) = the hash in F.
    /// A malformed F (wrong key, forged or garbled signature) is a failed verification, not an error.
    public static func verifyMessageRepresentative(_ f: [UInt8], challenge: [UInt8]) -> ActiveAuthenticationVerification
    {
        let r: ISO9796Recovery
        do { r = try parseMessageRepresentative(f) } catch {
            return ActiveAuthenticationVerification(
                scheme: .rsaISO9796_2, hash: .sha1, verified: false, recoveredMessage: nil)
        }
        let d = r.hash.hash(r.m1 + challenge)
        return ActiveAuthenticationVerification(
            scheme: .rsaISO9796_2, hash: r.hash, verified: ConstantTime.equals(d, r.digest),
            recoveredMessage: r.m1)
    }

    /// The hash named by an ActiveAuthenticationInfo signatureAlgorithm (X9.62 ecdsa-with-SHA* or BSI
    /// TR-03111 ecdsa-plain-SHA*), nil when unknown.
    public static func hash(forSignatureAlgorithm oid: String) -> HashAlgorithm? {
        switch oid {
        case "1.2.840.10045.4.1", "0.4.0.127.0.7.1.1.4.1.1": return .sha1
        case "1.2.840.10045.4.3.1", "0.4.0.127.0.7.1.1.4.1.2": return .sha224
        case "1.2.840.10045.4.3.2", "0.4.0.127.0.7.1.1.4.1.3": return .sha256
        case "1.2.840.10045.4.3.3", "0.4.0.127.0.7.1.1.4.1.4": return .sha384
        case "1.2.840.10045.4.3.4", "0.4.0.127.0.7.1.1.4.1.5": return .sha512
        default: return nil
        }
    }

    /// ECDSA over the challenge with the hash of DG14's ActiveAuthenticationInfo (§6.1.2.3, §9.2.4); the
    /// signature is plain r||s (BSI TR-03111), a DER ECDSA-Sig-Value is tolerated.
    public static func verifyECDSA(
        signature: [UInt8], challenge: [UInt8], publicKey: PublicKey,
        hash: HashAlgorithm
    ) throws(AccessControlError) -> ActiveAuthenticationVerification {
        let der = signature.first == 0x30 && (try? TLVParser.parse(signature, rules: .ber))?.children.count == 2
        do {
            let ok = try publicKey.verify(
                signature: signature, message: challenge, algorithm: der ? .ecdsa(hash) : .ecdsaPlain(hash))
            return ActiveAuthenticationVerification(scheme: .ecdsa, hash: hash, verified: ok, recoveredMessage: nil)
        } catch {
            throw AccessControlError(.verificationFailed, step: step, "ECDSA verification: \(error.description)")
        }
    }

    /// Verifies a signature over `challenge` with the DG15 key; ECDSA needs the signature algorithm of
    /// DG14's ActiveAuthenticationInfo. Pure: usable offline on a saved transcript.
    public static func verify(
        signature: [UInt8], challenge: [UInt8], publicKey: PublicKey,
        signatureAlgorithm: String?
    ) throws(AccessControlError) -> ActiveAuthenticationVerification {
        switch publicKey.kind {
        case .rsa:
            return try verifyRSA(signature: signature, challenge: challenge, publicKey: publicKey)
        case .ec:
            guard let oid = signatureAlgorithm else {
                throw AccessControlError(
                    .invalidInput, step: step,
                    "an ECDSA Active Authentication key needs DG14's ActiveAuthenticationInfo")
            }
            guard let h = hash(forSignatureAlgorithm: oid) else {
                throw AccessControlError(.unsupported, step: step, "signature algorithm \(oid) is not supported")
            }
            return try verifyECDSA(signature: signature, challenge: challenge, publicKey: publicKey, hash: h)
        }
    }

    /// Re-checks a saved transcript.
    public static func verify(_ t: ActiveAuthenticationTranscript) throws(AccessControlError)
        -> ActiveAuthenticationVerification
    {
        let key: PublicKey
        do { key = try PublicKey(subjectPublicKeyInfo: t.publicKeyInfo) } catch {
            throw AccessControlError(.invalidInput, step: step, "public key: \(error.description)")
        }
        return try verify(
            signature: t.signature, challenge: t.challenge, publicKey: key, signatureAlgorithm: t.signatureAlgorithm)
    }

    /// Runs Active Authentication through a secure channel: INTERNAL AUTHENTICATE with `challenge` (8 bytes;
    /// drawn from `random` when nil), then verifies. Returns the transcript and the verification.
    /// `ne` overrides the Le derived from the key (for replaying traces of readers that sent Le '00').
    public static func perform(
        channel: SecureChannel, dg15: [UInt8], activeAuthenticationInfo: ActiveAuthenticationInfo?,
        challenge: [UInt8]? = nil, ne: Int? = nil,
        random: any RandomSource = SystemRandom()
    ) async throws -> (transcript: ActiveAuthenticationTranscript, verification: ActiveAuthenticationVerification) {
        let spki = try publicKeyInfo(dg15: dg15)
        let key: PublicKey
        do { key = try PublicKey(subjectPublicKeyInfo: spki) } catch {
            throw AccessControlError(.invalidInput, step: step, "DG15 public key: \(error.description)")
        }
        let rnd = challenge ?? random.randomBytes(count: 8)
        guard rnd.count == 8 else {
            throw AccessControlError(.invalidInput, step: step, "the challenge must be 8 bytes")
        }
        var command = internalAuthenticate(challenge: rnd, publicKey: key)
        if let ne { command.ne = ne }
        let send: APDUSend = { try await channel.transmit($0) }
        let r = try await Exchange.expectSuccess(send, command, step: step)
        guard !r.data.isEmpty else {
            throw AccessControlError(.malformedResponse, step: step, "the chip returned no signature")
        }
        let transcript = ActiveAuthenticationTranscript(
            challenge: rnd, signature: r.data, publicKeyInfo: spki,
            signatureAlgorithm: activeAuthenticationInfo?.signatureAlgorithm.dotted)
        return (
            transcript,
            try verify(
                signature: r.data, challenge: rnd, publicKey: key,
                signatureAlgorithm: transcript.signatureAlgorithm)
        )
    }
}
