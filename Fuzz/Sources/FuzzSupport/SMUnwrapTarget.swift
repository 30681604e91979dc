import ISO7816
import MRTDCrypto
import MRTDSecureMessaging

/// The reader-side secure-messaging response unwrap (`SecureMessagingSession.unprotect`) with a fixed
/// session: fixed keys and send sequence counter (test values, not secrets), 3DES or AES.
///
/// A random response almost never carries a valid MAC, so most inputs stop at the MAC check. To reach
/// what lies behind it (data-object walk, DO'99', decryption, padding), the first byte of the input
/// selects a mode:
/// - bit 0: the cipher (0 = 3DES, 1 = AES-128);
/// - bits 1–2: 0 = the rest is the response APDU as received (data objects + SW1 SW2);
///   1 = the rest is the data objects before DO'8E', which the harness authenticates with the
///   session's MAC key and SSC (as a chip holding the keys would) before unwrapping;
///   2 = the rest is SW1 SW2 and a plaintext, which the harness encrypts (zero-filled to a whole block,
///   not padded: the padding is the input's) into DO'87' (DO'85' when bit 3 is set), adds DO'99' and
///   the MAC;
/// - bit 4: unwrap a second response (the same bytes) on the same session afterwards, so the SSC
///   bookkeeping and the dead-session rule run too.
enum SMUnwrapTarget {
    static let ciphers: [CipherAlgorithm] = [.tripleDES, .aes128]
    static let encryptionKey: [UInt8] = [
        0x97, 0x9E, 0xC1, 0x3B, 0x1C, 0xBF, 0xE9, 0xDC, 0xD0, 0x1A, 0xB0, 0xFE, 0xD3, 0x07, 0xEA, 0xE5,
    ]
    static let macKey: [UInt8] = [
        0xF1, 0xCB, 0x1F, 0x1F, 0xB5, 0xAD, 0xF2, 0x08, 0x80, 0x6B, 0x89, 0xDC, 0x57, 0x9D, 0xC1, 0xF8,
    ]

    static func keys(_ cipher: CipherAlgorithm) -> SessionKeys {
        SessionKeys(cipher: cipher, encryption: SecretBytes(encryptionKey), mac: SecretBytes(macKey))
    }

    static func initialSSC(_ cipher: CipherAlgorithm) -> [UInt8] {
        let ssc: [UInt8] = [0x88, 0x70, 0x22, 0x12, 0x0C, 0x06, 0xC2, 0x26]
        return cipher == .tripleDES ? ssc : [UInt8](repeating: 0, count: 8) + ssc
    }

    /// The SSC the first unwrap uses (the session increments before each message).
    static func firstMessageSSC(_ cipher: CipherAlgorithm) -> [UInt8] {
        var s = initialSSC(cipher)
        var i = s.count - 1
        while i >= 0 {
            s[i] &+= 1
            if s[i] != 0 { break }
            i -= 1
        }
        return s
    }

    static func run(_ bytes: [UInt8]) {
        _ = unwrap(bytes)
    }

    /// Unwraps the input in its mode; returns the first unwrap's result (for the seed self-check).
    @discardableResult
    static func unwrap(_ bytes: [UInt8]) -> Result<ResponseAPDU, SecureMessagingError>? {
        guard let selector = bytes.first else { return nil }
        let cipher = ciphers[Int(selector & 1)]
        let rest = Array(bytes.dropFirst())
        let response: [UInt8]
        switch (selector >> 1) & 3 {
        case 0: response = rest
        case 1:
            guard let r = authenticated(rest, cipher: cipher) else { return nil }
            response = r
        case 2:
            guard let r = encrypted(rest, cipher: cipher, odd: selector & 8 != 0) else { return nil }
            response = r
        default: return nil
        }
        guard let apdu = try? ResponseAPDU(bytes: response) else { return nil }
        var session = SecureMessagingSession(keys: keys(cipher), ssc: initialSSC(cipher))
        let first: Result<ResponseAPDU, SecureMessagingError>
        do { first = .success(try session.unprotect(apdu)) } catch { first = .failure(error) }
        if selector & 16 != 0 {
            touch(try? session.unprotect(apdu))
            touch(session.isDead)
        }
        return first
    }

    /// `objects` || 8E 08 MAC || 90 00, the MAC over pad(SSC || objects).
    static func authenticated(_ objects: [UInt8], cipher: CipherAlgorithm) -> [UInt8]? {
        guard let m = try? KeyedMAC(cipher, key: SecretBytes(macKey)),
            let mac = try? m.macPadded(firstMessageSSC(cipher) + objects)
        else { return nil }
        return objects + [0x8E, 0x08] + mac.prefix(8) + [0x90, 0x00]
    }

    /// SW1 SW2 then the plaintext, encrypted without added padding into DO'87'/DO'85', with DO'99'.
    static func encrypted(_ input: [UInt8], cipher: CipherAlgorithm, odd: Bool) -> [UInt8]? {
        guard input.count >= 2 else { return nil }
        let sw = Array(input.prefix(2))
        var plain = Array(input.dropFirst(2))
        let bs = cipher.blockSize
        if plain.count % bs != 0 { plain += [UInt8](repeating: 0, count: bs - plain.count % bs) }
        guard let c = try? KeyedBlockCipher(cipher, key: SecretBytes(encryptionKey)) else { return nil }
        let iv: [UInt8]
        if cipher == .tripleDES {
            iv = [UInt8](repeating: 0, count: 8)
        } else {
            guard let e = try? c.encryptCBC(iv: nil, firstMessageSSC(cipher)) else { return nil }
            iv = e
        }
        guard let cryptogram = plain.isEmpty ? [] : try? c.encryptCBC(iv: iv, plain) else { return nil }
        let value = odd ? cryptogram : [0x01] + cryptogram
        let objects = berTLV(odd ? 0x85 : 0x87, value) + [0x99, 0x02] + sw
        return authenticated(objects, cipher: cipher)
    }

    static func berTLV(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        let n = value.count
        let length: [UInt8]
        switch n {
        case ..<0x80: length = [UInt8(n)]
        case ..<0x100: length = [0x81, UInt8(n)]
        default: length = [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
        }
        return [tag] + length + value
    }

    /// Seeds for every mode and both ciphers, each checked to unwrap (so the harness's MAC and
    /// encryption agree with the session's: otherwise modes 1 and 2 would only exercise the MAC check).
    static func seeds() throws -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        let plains: [[UInt8]] = [
            [], [0x60, 0x14, 0x5F, 0x01, 0x04, 0x30, 0x31, 0x30, 0x37],
            Array(0..<200).map { UInt8($0 & 0xFF) },
        ]
        for (ci, cipher) in ciphers.enumerated() {
            for (pi, plain) in plains.enumerated() {
                var chip = SecureMessagingSession(keys: keys(cipher), ssc: initialSSC(cipher))
                let protected = try chip.protectResponse(
                    ResponseAPDU(data: plain, statusWord: StatusWord(rawValue: 0x9000)))
                let raw = protected.bytes
                out.append(("raw-\(cipher.rawValue)-\(pi)", [UInt8(ci)] + raw))
                let objects = Array(protected.data.dropLast(10))
                out.append(("mac-\(cipher.rawValue)-\(pi)", [UInt8(ci) | 2] + objects))
                var padded = plain + [0x80]
                while padded.count % cipher.blockSize != 0 { padded.append(0) }
                out.append(("enc-\(cipher.rawValue)-\(pi)", [UInt8(ci) | 4, 0x90, 0x00] + padded))
                out.append(("enc-odd-twice-\(cipher.rawValue)-\(pi)", [UInt8(ci) | 4 | 8 | 16, 0x90, 0x00] + padded))
            }
        }
        for (name, seed) in out {
            guard case .success(let r)? = unwrap(seed), r.statusWord.rawValue == 0x9000 else {
                throw SeedError("sm-unwrap seed \(name) does not unwrap: the harness's MAC or encryption is wrong")
            }
        }
        return out
    }
}
