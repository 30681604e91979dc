import ASN1TLV
import ISO7816
public import MRTDCrypto

/// A secure-messaging session: keys and the send sequence counter (8 bytes for 3DES, 16 for AES).
/// Not copyable: one owner advances the SSC, so the compiler rejects a second sender of one counter. On the
/// reader side the owner is the `SecureChannel` it is given to (access-control and Chip Authentication results
/// carry the keys and the initial SSC, and make the session when asked); on the chip side, the virtual chip's
/// engine. Used by both sides: the reader (`protect` / `unprotect`, SecureMessagingSession+Reader.swift) and the
/// virtual chip (`unprotectCommand` / `protectResponse`, +Chip.swift); PACE-CAM's data in +CAM.swift.
///
/// ICAO 9303-11 §9.8 (ISO/IEC 7816-4 §10): the SSC is incremented before every command and before
/// every response, on both sides. Commands carry DO'87' (01 || E(KSenc, pad(data))) for even INS or
/// DO'85' (E(KSenc, pad(data)), no padding-content indicator) for odd INS, DO'97' (Le) and DO'8E'
/// (MAC over pad(SSC || pad(header) || DOs)). Responses carry DO'87'/'85', DO'99' (SW) and DO'8E'.
/// 3DES: 2-key 3DES-CBC with zero IV and the retail MAC (§9.8.6.1); AES: AES-CBC with
/// IV = E(KSenc, SSC) and AES-CMAC truncated to 8 bytes (§9.8.6.2).
public struct SecureMessagingSession: ~Copyable, Sendable {
    /// The keys, keyed into cipher contexts once for the whole session (key schedules, CMAC subkey). A new session — after Chip Authentication, a new
    /// PACE run — keys its own.
    private let crypto: SessionCrypto
    /// The send sequence counter, big-endian in its first 8 (3DES) or 16 (AES) bytes.
    private var ssc: (UInt64, UInt64) = (0, 0)
    private var dead = false
    /// INS of the last command unprotected on the chip side (odd INS → DO'85' in the response).
    var lastCommandINS: UInt8 = 0

    public init(keys: SessionKeys, ssc: [UInt8]) {
        precondition(
            ssc.count == keys.cipher.blockSize, "SSC must be \(keys.cipher.blockSize) bytes for \(keys.cipher.rawValue)"
        )
        crypto = SessionCrypto(keys)
        withUnsafeMutableBytes(of: &self.ssc) { s in ssc.withUnsafeBytes { s.copyMemory(from: $0) } }
    }
    /// A session whose SSC starts at zero (PACE, CA).
    public init(keys: SessionKeys) {
        self.init(keys: keys, ssc: [UInt8](repeating: 0, count: keys.cipher.blockSize))
    }

    var keys: SessionKeys { crypto.keys }
    public var cipher: CipherAlgorithm { keys.cipher }
    /// True after any failure: every further call throws `.sessionDead`.
    public var isDead: Bool { dead }
    /// The current send sequence counter — secret: for tests and for resuming, never for logs.
    public var sendSequenceCounter: [UInt8] {
        let bs = blockSize
        return withUnsafeBytes(of: ssc) { Array($0[0..<bs]) }
    }
    /// Redacted.
    public var description: String {
        "SecureMessagingSession(\(cipher.rawValue)\(dead ? ", dead" : ""), keys and SSC redacted)"
    }

    /// Largest plaintext the chip can return in one protected short response (223 AES, 231 3DES).
    ///
    /// A short response carries at most 256 data bytes. DO'99' (4 bytes) and DO'8E' (10 bytes) leave
    /// 242 bytes for DO'87' = tag (1) + length (2 bytes, '81 xx', since the value exceeds 127)
    /// + padding-content indicator (1) + cryptogram, so the cryptogram has at most 238 bytes: 224 for
    /// AES (a multiple of 16), 232 for 3DES (a multiple of 8). Padding method 2 always adds at least
    /// one byte, hence 223 and 231 plaintext bytes.
    public static func maxShortResponsePlaintext(cipher: CipherAlgorithm) -> Int {
        let available = 256 - 4 - 10 - 4
        let cryptogram = available / cipher.blockSize * cipher.blockSize
        return cryptogram - 1
    }

    // MARK: - Primitives
    //
    // The protected data objects are built in place in the array that becomes the APDU's data field
    // (the cryptogram is encrypted where it will travel), and the MAC streams over the bytes where they
    // lie: no intermediate arrays besides the output.

    mutating func incrementSSC() {
        let bs = blockSize
        withUnsafeMutableBytes(of: &ssc) { counter in
            var i = bs - 1
            while i >= 0 {
                counter[i] &+= 1
                if counter[i] != 0 { break }
                i -= 1
            }
        }
    }

    /// The SSC's bytes, lent to `body`.
    private func withSSC<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        let bs = blockSize
        return withUnsafeBytes(of: ssc) { body(UnsafeRawBufferPointer(rebasing: $0[0..<bs])) }
    }

    func fail(_ code: SecureMessagingError.Code, _ reason: String, statusWord: StatusWord? = nil)
        -> SecureMessagingError
    {
        SecureMessagingError(code, reason, statusWord: statusWord)
    }

    /// One step of either side: increments the SSC (before every command and every response, on both sides) and
    /// runs `body`; on any error the session is dead.
    mutating func guarded<R>(_ body: (inout SecureMessagingSession) throws(SecureMessagingError) -> R)
        throws(SecureMessagingError) -> R
    {
        guard !dead else {
            throw SecureMessagingError(.sessionDead, "the secure-messaging session was closed by an earlier failure")
        }
        incrementSSC()
        do {
            return try body(&self)
        } catch {
            dead = true
            throw error
        }
    }

    var blockSize: Int { keys.cipher.blockSize }

    /// The cipher, or the reason it could not be keyed.
    func encryption(_ code: SecureMessagingError.Code, _ what: @autoclosure () -> String)
        throws(SecureMessagingError) -> KeyedBlockCipher
    {
        switch crypto.encryptor {
        case .success(let c): return c
        case .failure(let e): throw fail(code, "\(what()): \(e.code.rawValue)")
        }
    }

    func authentication() throws(SecureMessagingError) -> KeyedMAC {
        switch crypto.authenticator {
        case .success(let m): return m
        case .failure(let e): throw fail(.malformedResponse, "MAC computation failed: \(e.code.rawValue)")
        }
    }

    /// The IV of one en- or decryption: zero for 3DES, E(KSenc, SSC) for AES (ICAO 9303-11 §9.8.6.2).
    private func writeIV(_ c: KeyedBlockCipher, into iv: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        switch keys.cipher {
        case .tripleDES:
            iv.initializeMemory(as: UInt8.self, repeating: 0)
        case .aes128, .aes192, .aes256:
            var failure: CryptoError?
            withSSC { ssc in
                do throws(CryptoError) { try c.encryptCBC(iv: nil, ssc, into: iv) } catch { failure = error }
            }
            if let failure { throw failure }
        }
    }

    /// Pads `plain` (method 2) into `out` — exactly the padded length — and encrypts it there.
    private func encrypt(_ plain: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer)
        throws(SecureMessagingError)
    {
        let c = try encryption(.commandTooLong, "encryption failed")
        if let base = plain.baseAddress, !plain.isEmpty {
            out.baseAddress!.copyMemory(from: base, byteCount: plain.count)
        }
        out[plain.count] = 0x80
        for i in (plain.count + 1)..<out.count { out[i] = 0 }
        var ivStorage: (UInt64, UInt64) = (0, 0)
        let bs = blockSize
        do {
            try withUnsafeMutableBytes(of: &ivStorage) { (storage) throws(CryptoError) in
                let iv = UnsafeMutableRawBufferPointer(rebasing: storage[0..<bs])
                try writeIV(c, into: iv)
                try c.encryptCBC(iv: UnsafeRawBufferPointer(iv), UnsafeRawBufferPointer(out), into: out)
            }
        } catch {
            throw fail(.commandTooLong, "encryption failed: \(error.code.rawValue)")
        }
    }

    /// Decrypts `bytes[range]` and removes the method-2 padding.
    func decrypt(_ bytes: [UInt8], _ range: Range<Int>) throws(SecureMessagingError) -> [UInt8] {
        let c = try encryption(.decryptionFailed, "cryptogram of \(range.count) bytes")
        let bs = blockSize
        let n = range.count
        func failed(_ code: CryptoError.Code) -> SecureMessagingError {
            fail(.decryptionFailed, "cryptogram of \(n) bytes: \(code.rawValue)")
        }
        guard n % bs == 0 else { throw failed(.invalidInput) }
        guard n > 0 else { throw failed(.badPadding) }
        var failure: CryptoError?
        var plain = [UInt8](unsafeUninitializedCapacity: n) { buffer, initialized in
            let out = UnsafeMutableRawBufferPointer(buffer)
            var ivStorage: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &ivStorage) { storage in
                let iv = UnsafeMutableRawBufferPointer(rebasing: storage[0..<bs])
                bytes.withUnsafeBytes { all in
                    do throws(CryptoError) {
                        try writeIV(c, into: iv)
                        try c.decryptCBC(
                            iv: UnsafeRawBufferPointer(iv), UnsafeRawBufferPointer(rebasing: all[range]), into: out)
                    } catch { failure = error }
                }
            }
            initialized = failure == nil ? n : 0
        }
        if let failure { throw failed(failure.code) }
        // ISO/IEC 9797-1 method 2: 80 then at most one block of zeros
        var i = n - 1
        while i >= 0 && plain[i] == 0 && n - i <= bs { i -= 1 }
        guard i >= 0, plain[i] == 0x80, n - i <= bs else { throw failed(.badPadding) }
        plain.removeSubrange(i...)
        return plain
    }

    /// The plaintext of a DO'87' (after its padding-content indicator 01) or DO'85' (ICAO 9303-11 §9.8.5).
    func decryptCryptogram(_ object: TLVHeader, in bytes: [UInt8]) throws(SecureMessagingError) -> [UInt8] {
        guard object.tag == 0x87 else { return try decrypt(bytes, object.valueRange) }
        guard object.valueLength > 0, bytes[object.valueStart] == 0x01 else {
            throw fail(.malformedResponse, "DO'87' without padding-content indicator 01")
        }
        return try decrypt(bytes, (object.valueStart + 1)..<object.valueEnd)
    }

    /// The 8-byte MAC over pad(SSC || header || bytes[range]) (the padding is applied here), written to `out`.
    func mac(
        header: UnsafeRawBufferPointer, _ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer
    ) throws(SecureMessagingError) {
        let m = try authentication()
        var failure: CryptoError?
        withSSC { ssc in
            do throws(CryptoError) { try m.macPadded(ssc, header, bytes, into: out) } catch { failure = error }
        }
        if let failure { throw fail(.malformedResponse, "MAC computation failed: \(failure.code.rawValue)") }
    }

    /// Verifies DO'8E' (at `macValue`) over pad(SSC || header || bytes[..<end]) in constant time.
    func verifyMAC(header: UnsafeRawBufferPointer, _ bytes: [UInt8], authenticatedEnd end: Int, macValue: Int)
        throws(SecureMessagingError) -> Bool
    {
        var expected: UInt64 = 0
        var received: UInt64 = 0
        var failure: SecureMessagingError?
        bytes.withUnsafeBytes { all in
            withUnsafeMutableBytes(of: &expected) { e in
                do throws(SecureMessagingError) {
                    try mac(header: header, UnsafeRawBufferPointer(rebasing: all[..<end]), into: e)
                } catch { failure = error }
            }
            withUnsafeMutableBytes(of: &received) {
                $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[macValue..<(macValue + 8)]))
            }
        }
        if let failure { throw failure }
        return expected ^ received == 0
    }

    /// pad(CLA INS P1 P2) (one block) for the command MAC, lent to `body`.
    func withPaddedHeader<R, E: Error>(
        _ cla: UInt8, _ ins: UInt8, _ p1: UInt8, _ p2: UInt8,
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        var storage: (UInt64, UInt64) = (0, 0)
        let bs = blockSize
        return try withUnsafeMutableBytes(of: &storage) { (s) throws(E) -> R in
            s[0] = cla
            s[1] = ins
            s[2] = p1
            s[3] = p2
            s[4] = 0x80
            return try body(UnsafeRawBufferPointer(rebasing: s[0..<bs]))
        }
    }

    /// Writes DO'87' (01 || cryptogram; even INS) or DO'85' (cryptogram; odd INS) for `plain` at `out[at...]`;
    /// returns the end. The size is `ProtectedField.cryptogramObjectCount`.
    func writeCryptogramObject(_ plain: [UInt8], odd: Bool, into out: UnsafeMutableRawBufferPointer, at: Int)
        throws(SecureMessagingError) -> Int
    {
        let cryptogramCount = ProtectedField.cryptogramCount(plain.count, blockSize: blockSize)
        var p = TLVWriter.writeHeader(
            odd ? 0x85 : 0x87, length: odd ? cryptogramCount : cryptogramCount + 1, into: out, at: at)
        if !odd {
            out[p] = 0x01
            p += 1
        }
        let region = UnsafeMutableRawBufferPointer(rebasing: out[p..<(p + cryptogramCount)])
        var failure: SecureMessagingError?
        plain.withUnsafeBytes { d in
            do throws(SecureMessagingError) { try encrypt(d, into: region) } catch { failure = error }
        }
        if let failure { throw failure }
        return p + cryptogramCount
    }

    /// Builds the protected data field of a command or a response — the one wrap both sides use: the cryptogram
    /// object for `plain` (DO'87', or DO'85' for an odd INS; none when `plain` is empty), the plain object
    /// `plainTag` with `plainValue` (DO'97' with Le in a command, DO'99' with the status word in a response; none
    /// when nil), then DO'8E' with the MAC over pad(SSC ‖ pad(header) ‖ the objects) — a command's header, none in
    /// a response. The objects are built in place in the array that becomes the APDU's data field.
    func protectedField(
        _ plain: [UInt8], odd: Bool, plainTag: UInt8, _ plainValue: (first: UInt8, second: UInt8, count: Int)?,
        header: (UInt8, UInt8, UInt8, UInt8)?
    ) throws(SecureMessagingError) -> [UInt8] {
        if !plain.isEmpty { _ = try encryption(.commandTooLong, "encryption failed") }
        _ = try authentication()
        let dataObject =
            plain.isEmpty ? 0 : ProtectedField.cryptogramObjectCount(plain.count, blockSize: blockSize, odd: odd)
        let count = dataObject + (plainValue.map { 2 + $0.count } ?? 0) + 10
        // Lc of an extended command is at most 65535; Ne of an extended response at most 65536
        let limit = header == nil ? 65536 : 65535
        guard count <= limit else {
            throw fail(.commandTooLong, "protected data field of \(count) bytes exceeds \(limit)")
        }
        return try [UInt8](unsafeUninitializedCapacity: count) { (buffer, initialized) throws(SecureMessagingError) in
            let out = UnsafeMutableRawBufferPointer(buffer)
            var p = 0
            if !plain.isEmpty {
                p = try writeCryptogramObject(plain, odd: odd, into: out, at: 0)
            }
            if let plainValue {
                out[p] = plainTag
                out[p + 1] = UInt8(plainValue.count)
                out[p + 2] = plainValue.first
                if plainValue.count == 2 { out[p + 3] = plainValue.second }
                p += 2 + plainValue.count
            }
            let objects = UnsafeRawBufferPointer(rebasing: out[0..<p])
            let macField = UnsafeMutableRawBufferPointer(rebasing: out[(p + 2)..<(p + 10)])
            if let (cla, ins, p1, p2) = header {
                try withPaddedHeader(cla, ins, p1, p2) { (header) throws(SecureMessagingError) in
                    try mac(header: header, objects, into: macField)
                }
            } else {
                try mac(header: UnsafeRawBufferPointer(start: nil, count: 0), objects, into: macField)
            }
            out[p] = 0x8E
            out[p + 1] = 8
            initialized = count
        }
    }

    /// Opens the protected data objects of a command or a response (ICAO 9303-11 §9.8.5) — the one unwrap both
    /// sides use: DO'8E' must be last and 8 bytes; it is verified in constant time over pad(SSC ‖ header ‖ the
    /// objects before it) before anything is decrypted; then DO'87'/DO'85' is decrypted, and the one other object
    /// the direction carries (`other`: DO'97' Le in a command, DO'99' status in a response) is returned where it
    /// lies. Any other object is refused. `bytes` may be empty only to be refused (no DO'8E').
    func open(_ bytes: [UInt8], header: UnsafeRawBufferPointer, other: UInt32, in direction: String)
        throws(SecureMessagingError) -> (plain: [UInt8], other: Range<Int>?)
    {
        guard let last = ProtectedField.lastObject(bytes) else {
            throw fail(
                .malformedResponse,
                bytes.isEmpty ? "DO'8E' missing" : "\(direction) data objects are not valid BER-TLV")
        }
        guard last.tag == 0x8E else { throw fail(.malformedResponse, "DO'8E' missing or not last") }
        guard last.valueLength == 8 else { throw fail(.malformedResponse, "DO'8E' of \(last.valueLength) bytes") }
        guard try verifyMAC(header: header, bytes, authenticatedEnd: last.start, macValue: last.valueStart) else {
            throw fail(.macMismatch, "\(direction) MAC (DO'8E') does not verify")
        }
        var plain: [UInt8] = []
        var found: Range<Int>?
        try ProtectedField.forEachObject(in: bytes, before: last.start) { (object) throws(SecureMessagingError) in
            switch object.tag {
            case 0x87, 0x85: plain = try decryptCryptogram(object, in: bytes)
            case other: found = object.valueRange
            default:
                throw fail(
                    .malformedResponse, "unexpected data object \(TLVTag.describe(object.tag)) in the \(direction)")
            }
        }
        return (plain, found)
    }
}

/// A session's keys and their keyed cipher contexts. A key that does not fit the cipher is reported
/// where it is first used, as a failed operation (with the code the one-shot functions gave).
private final class SessionCrypto: Sendable {
    let keys: SessionKeys
    let encryptor: Result<KeyedBlockCipher, CryptoError>
    let authenticator: Result<KeyedMAC, CryptoError>

    init(_ keys: SessionKeys) {
        self.keys = keys
        encryptor = Result { () throws(CryptoError) in try KeyedBlockCipher(keys.cipher, key: keys.encryption) }
        authenticator = Result { () throws(CryptoError) in try KeyedMAC(keys.cipher, key: keys.mac) }
    }
}

/// The data objects of a protected field (ICAO 9303-11 §9.8.5), read where they lie by ASN1TLV's `TLVCursor`
/// (positions, never copies): BER lengths as chips write them, no indefinite length.
enum ProtectedField {
    static let rules = TLVParser.Rules(distinguished: false, allowIndefiniteLength: false)

    /// Cryptogram length for `plainCount` bytes padded with method 2.
    static func cryptogramCount(_ plainCount: Int, blockSize: Int) -> Int { (plainCount / blockSize + 1) * blockSize }

    /// Encoded size of DO'87' (with the padding-content indicator) or DO'85' for `plainCount` plain bytes.
    static func cryptogramObjectCount(_ plainCount: Int, blockSize: Int, odd: Bool) -> Int {
        let value = cryptogramCount(plainCount, blockSize: blockSize) + (odd ? 0 : 1)
        return 1 + TLVWriter.lengthCount(value) + value
    }

    /// Checks that `bytes` is a sequence of data objects and returns the last one; nil on any structural
    /// error or when there is none.
    static func lastObject(_ bytes: [UInt8]) -> TLVHeader? {
        var cursor = TLVCursor(bytes, rules: rules)
        var last: TLVHeader?
        do {
            while let h = try cursor.next() { last = h }
        } catch {
            return nil
        }
        return last
    }

    /// Calls `body` with each data object that starts before `end` (`bytes` already checked by `lastObject`).
    static func forEachObject(
        in bytes: [UInt8], before end: Int, _ body: (TLVHeader) throws(SecureMessagingError) -> Void
    ) throws(SecureMessagingError) {
        var cursor = TLVCursor(bytes, rules: rules)
        while cursor.position < end, let h = try? cursor.next() { try body(h) }
    }
}
