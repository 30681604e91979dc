/// ISO/IEC 9796-2 digital signature scheme 1 (partial message recovery) with RSA, as used by
/// Active Authentication (ICAO 9303-11 §6.1, Appendix F):
///
///     F = header || M1 || H(M1 || M2) || trailer,   signature = F^d mod n
///
/// header '6A' (partial recovery) or '4A' (total recovery); trailer 'BC' (SHA-1, implicit) or
/// 'xx CC' with the ISO/IEC 10118-3 hash identifier xx ('33' SHA-1, '34' SHA-256, '35' SHA-512,
/// '36' SHA-384, '38' SHA-224). M2 is the non-recoverable part (the reader's challenge RND.IFD).
public enum ISO9796_2 {
    public struct Recovered: Sendable, Hashable {
        /// The recoverable message part M1.
        public var m1: [UInt8]
        /// The hash H carried in F.
        public var digest: [UInt8]
        public var hash: HashAlgorithm
        /// True for header '6A' (M2 needed to check H), false for '4A'.
        public var partialRecovery: Bool
        /// The whole message representative F.
        public var representative: [UInt8]
    }

    static func hashIdentifier(_ hash: HashAlgorithm) -> UInt8 {
        switch hash {
        case .sha1: return 0x33
        case .sha256: return 0x34
        case .sha512: return 0x35
        case .sha384: return 0x36
        case .sha224: return 0x38
        }
    }

    /// Parses a message representative F (leading zero bytes ignored); nil when it is not one.
    static func parse(_ f: [UInt8]) -> Recovered? {
        let f = Array(f.drop(while: { $0 == 0 }))
        guard f.count >= 3, f[0] == 0x6A || f[0] == 0x4A else { return nil }
        let hash: HashAlgorithm
        let trailerLength: Int
        if f.last == 0xBC {
            hash = .sha1
            trailerLength = 1
        } else if f.last == 0xCC, let h = HashAlgorithm.allCases.first(where: { hashIdentifier($0) == f[f.count - 2] })
        {
            hash = h
            trailerLength = 2
        } else {
            return nil
        }
        guard f.count >= 1 + hash.outputLength + trailerLength else { return nil }
        let digestStart = f.count - trailerLength - hash.outputLength
        return Recovered(
            m1: Array(f[1..<digestStart]), digest: Array(f[digestStart..<(f.count - trailerLength)]),
            hash: hash, partialRecovery: f[0] == 0x6A, representative: f)
    }

    /// Recovers F from an RSA signature (also trying n − F, which ISO/IEC 9796-2 allows signers to send).
    public static func recover(signature: [UInt8], publicKey: PublicKey) throws(CryptoError) -> Recovered {
        let f = try publicKey.rsaPublicOperation(signature)
        if let r = parse(f) { return r }
        if let n = publicKey.rsaModulus, let r = parse((BigNumber(n) - BigNumber(f)).bytes(width: n.count)) { return r }
        throw CryptoError(
            .verificationFailed, function: "ISO9796_2.recover",
            "the signature does not open to an ISO/IEC 9796-2 message representative")
    }

    /// Recovers M1 and checks H = hash(M1 || M2). False on any mismatch (including a malformed representative).
    public static func verify(signature: [UInt8], nonRecoverable m2: [UInt8], publicKey: PublicKey) throws(CryptoError)
        -> Bool
    {
        guard case .rsa = publicKey.kind else {
            throw CryptoError(.unsupportedAlgorithm, function: "ISO9796_2.verify", "not an RSA key")
        }
        guard let r = try? recover(signature: signature, publicKey: publicKey) else { return false }
        return ConstantTime.equals(r.hash.hash(r.m1 + m2), r.digest)
    }

    /// The message representative F = 6A || M1 || hash(M1 || M2) || trailer ('BC' for SHA-1, else 'xx CC').
    public static func representative(m1: [UInt8], m2: [UInt8], hash: HashAlgorithm) -> [UInt8] {
        let trailer: [UInt8] = hash == .sha1 ? [0xBC] : [hashIdentifier(hash), 0xCC]
        return [0x6A] + m1 + hash.hash(m1 + m2) + trailer
    }

    /// Signs as an eMRTD chip does for Active Authentication: M1 is random and fills the capacity
    /// of the modulus, M2 is the challenge.
    public static func sign(
        nonRecoverable m2: [UInt8], privateKey: PrivateKey, hash: HashAlgorithm,
        random: any RandomSource = SystemRandom()
    ) throws(CryptoError) -> [UInt8] {
        guard let n = privateKey.publicKey.rsaModulus else {
            throw CryptoError(.unsupportedAlgorithm, function: "ISO9796_2.sign", "not an RSA key")
        }
        // F must stay below n: use the full modulus width only when its top byte exceeds the header.
        let width = n[0] > 0x6A ? n.count : n.count - 1
        let m1Length = width - 1 - hash.outputLength - (hash == .sha1 ? 1 : 2)
        guard m1Length > 0 else {
            throw CryptoError(.invalidKey, function: "ISO9796_2.sign", "modulus too small for \(hash.rawValue)")
        }
        let f = representative(m1: random.randomBytes(count: m1Length), m2: m2, hash: hash)
        return try privateKey.rsaPrivateOperation(f)
    }
}
