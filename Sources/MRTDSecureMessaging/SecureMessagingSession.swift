public import ISO7816
public import MRTDCrypto

/// A secure-messaging session: keys and the send sequence counter (8 bytes for 3DES, 16 for AES).
/// A value type owned by one actor at a time. Used by both sides: the reader (`protect` /
/// `unprotect`) and the virtual chip (`unprotectCommand` / `protectResponse`).
///
/// ICAO 9303-11 §9.8 (ISO/IEC 7816-4 §10): the SSC is incremented before every command and before
/// every response, on both sides. Commands carry DO'87' (01 || E(KSenc, pad(data))) for even INS or
/// DO'85' (E(KSenc, pad(data)), no padding-content indicator) for odd INS, DO'97' (Le) and DO'8E'
/// (MAC over pad(SSC || pad(header) || DOs)). Responses carry DO'87'/'85', DO'99' (SW) and DO'8E'.
/// 3DES: 2-key 3DES-CBC with zero IV and the retail MAC (§9.8.6.1); AES: AES-CBC with
/// IV = E(KSenc, SSC) and AES-CMAC truncated to 8 bytes (§9.8.6.2).
public struct SecureMessagingSession: Sendable, CustomStringConvertible {
    private let keys: SessionKeys
    private var counter: [UInt8]
    private var dead = false
    /// INS of the last command unprotected on the chip side (odd INS → DO'85' in the response).
    private var lastCommandINS: UInt8 = 0

    public init(keys: SessionKeys, ssc: [UInt8]) {
        precondition(ssc.count == keys.cipher.blockSize, "SSC must be \(keys.cipher.blockSize) bytes for \(keys.cipher.rawValue)")
        self.keys = keys
        self.counter = ssc
    }
    /// A session whose SSC starts at zero (PACE, CA).
    public init(keys: SessionKeys) {
        self.init(keys: keys, ssc: [UInt8](repeating: 0, count: keys.cipher.blockSize))
    }

    public var cipher: CipherAlgorithm { keys.cipher }
    /// True after any failure: every further call throws `.sessionDead`.
    public var isDead: Bool { dead }
    /// The current send sequence counter — secret: for tests and for resuming, never for logs.
    public var sendSequenceCounter: [UInt8] { counter }
    /// Redacted.
    public var description: String { "SecureMessagingSession(\(cipher.rawValue)\(dead ? ", dead" : ""), keys and SSC redacted)" }

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

    private mutating func incrementSSC() {
        var i = counter.count - 1
        while i >= 0 {
            counter[i] &+= 1
            if counter[i] != 0 { break }
            i -= 1
        }
    }

    private func fail(_ code: SecureMessagingError.Code, _ reason: String, statusWord: StatusWord? = nil) -> SecureMessagingError {
        SecureMessagingError(code, reason, statusWord: statusWord)
    }

    /// Runs `body`; on any error the session is dead.
    private mutating func guarded<R>(_ body: (inout SecureMessagingSession) throws(SecureMessagingError) -> R) throws(SecureMessagingError) -> R {
        guard !dead else { throw SecureMessagingError(.sessionDead, "the secure-messaging session was closed by an earlier failure") }
        do {
            return try body(&self)
        } catch {
            dead = true
            throw error
        }
    }

    private func iv() throws(CryptoError) -> [UInt8] {
        switch keys.cipher {
        case .tripleDES: return [UInt8](repeating: 0, count: 8)
        case .aes128, .aes192, .aes256: return try AES.encryptECB(key: keys.encryption, counter)
        }
    }

    private func encrypt(_ plain: [UInt8]) throws(SecureMessagingError) -> [UInt8] {
        do {
            let padded = Padding.pad(plain, blockSize: keys.cipher.blockSize)
            let iv = try iv()
            switch keys.cipher {
            case .tripleDES: return try TripleDES.encryptCBC(key: keys.encryption, iv: iv, padded)
            case .aes128, .aes192, .aes256: return try AES.encryptCBC(key: keys.encryption, iv: iv, padded)
            }
        } catch {
            throw fail(.commandTooLong, "encryption failed: \(error.code.rawValue)")
        }
    }

    private func decrypt(_ cryptogram: [UInt8]) throws(SecureMessagingError) -> [UInt8] {
        do {
            let iv = try iv()
            let padded: [UInt8]
            switch keys.cipher {
            case .tripleDES: padded = try TripleDES.decryptCBC(key: keys.encryption, iv: iv, cryptogram)
            case .aes128, .aes192, .aes256: padded = try AES.decryptCBC(key: keys.encryption, iv: iv, cryptogram)
            }
            return try Padding.unpad(padded, blockSize: keys.cipher.blockSize)
        } catch {
            throw fail(.decryptionFailed, "cryptogram of \(cryptogram.count) bytes: \(error.code.rawValue)")
        }
    }

    /// The 8-byte MAC over pad(SSC || input) (the padding is applied here).
    private func mac(_ input: [UInt8]) throws(SecureMessagingError) -> [UInt8] {
        do {
            let n = Padding.pad(counter + input, blockSize: keys.cipher.blockSize)
            switch keys.cipher {
            case .tripleDES: return try RetailMAC.mac(key: keys.mac, n, padded: true)
            case .aes128, .aes192, .aes256: return Array(try AESCMAC.mac(key: keys.mac, n).prefix(8))
            }
        } catch {
            throw fail(.malformedResponse, "MAC computation failed: \(error.code.rawValue)")
        }
    }

    private func paddedHeader(_ cla: UInt8, _ ins: UInt8, _ p1: UInt8, _ p2: UInt8) -> [UInt8] {
        Padding.pad([cla, ins, p1, p2], blockSize: keys.cipher.blockSize)
    }

    // MARK: - Reader side

    /// Reader side: increments the SSC and wraps the command (DO'87'/'85', DO'97', DO'8E').
    /// The protected command uses extended length when the plain one does (data > 255 bytes,
    /// Ne > 256 or forced) or when the protected data field exceeds 255 bytes; its Le is '00'
    /// ('0000' when extended).
    public mutating func protect(_ command: CommandAPDU) throws(SecureMessagingError) -> CommandAPDU {
        try guarded { (s) throws(SecureMessagingError) in try s.protectCommand(command) }
    }

    private mutating func protectCommand(_ command: CommandAPDU) throws(SecureMessagingError) -> CommandAPDU {
        incrementSSC()
        let cla = command.cla | 0x0C
        var dataObjects: [UInt8] = []
        if !command.data.isEmpty {
            let cryptogram = try encrypt(command.data)
            if command.ins & 1 == 1 {
                dataObjects += SMTLV.encode(0x85, cryptogram)
            } else {
                dataObjects += SMTLV.encode(0x87, [0x01] + cryptogram)
            }
        }
        if let ne = command.ne {
            dataObjects += SMTLV.encode(0x97, Self.encodeLe(ne, extended: command.isExtended))
        }
        let cc = try mac(paddedHeader(cla, command.ins, command.p1, command.p2) + dataObjects)
        let data = dataObjects + SMTLV.encode(0x8E, cc)
        guard data.count <= 65535 else {
            throw fail(.commandTooLong, "protected data field of \(data.count) bytes exceeds 65535")
        }
        let extended = command.isExtended || data.count > 255
        return CommandAPDU(cla: cla, ins: command.ins, p1: command.p1, p2: command.p2, data: data,
                           ne: extended ? 65536 : 256, forceExtended: extended)
    }

    /// DO'97' content: Le as the unprotected command encodes it — one byte for a short command
    /// ('00' = 256), two bytes for an extended one ('0000' = 65536).
    static func encodeLe(_ ne: Int, extended: Bool) -> [UInt8] {
        if ne <= 256 && !extended { return [UInt8(ne & 0xFF)] }
        return ne == 65536 ? [0, 0] : [UInt8(ne >> 8), UInt8(ne & 0xFF)]
    }

    static func decodeLe(_ le: [UInt8]) -> Int? {
        switch le.count {
        case 1: return le[0] == 0 ? 256 : Int(le[0])
        case 2:
            let v = Int(le[0]) << 8 | Int(le[1])
            return v == 0 ? 65536 : v
        default: return nil
        }
    }

    /// Reader side: increments the SSC, verifies DO'8E' in constant time before decrypting, checks DO'99'
    /// and returns the plain response with the protected status word.
    public mutating func unprotect(_ response: ResponseAPDU) throws(SecureMessagingError) -> ResponseAPDU {
        try guarded { (s) throws(SecureMessagingError) in try s.unprotectResponse(response) }
    }

    private mutating func unprotectResponse(_ response: ResponseAPDU) throws(SecureMessagingError) -> ResponseAPDU {
        incrementSSC()
        if response.data.isEmpty {
            if response.statusWord.isSuccess {
                throw fail(.malformedResponse, "response without secure-messaging data objects", statusWord: response.statusWord)
            }
            throw fail(.chipRejectedSecureMessaging,
                       "chip answered \(response.statusWord) without secure messaging", statusWord: response.statusWord)
        }
        guard let objects = SMTLV.parse(response.data) else {
            throw fail(.malformedResponse, "response data objects are not valid BER-TLV")
        }
        guard let last = objects.last, last.tag == 0x8E else {
            throw fail(.malformedResponse, "DO'8E' missing or not last")
        }
        guard last.value.count == 8 else { throw fail(.malformedResponse, "DO'8E' of \(last.value.count) bytes") }
        let authenticated = Array(response.data[..<last.offset])
        let expected = try mac(authenticated)
        guard ConstantTime.equals(expected, last.value) else {
            throw fail(.macMismatch, "response MAC (DO'8E') does not verify")
        }
        var plain: [UInt8] = []
        var status: StatusWord?
        for object in objects.dropLast() {
            switch object.tag {
            case 0x87:
                guard object.value.first == 0x01 else { throw fail(.malformedResponse, "DO'87' without padding-content indicator 01") }
                plain = try decrypt(Array(object.value.dropFirst()))
            case 0x85:
                plain = try decrypt(object.value)
            case 0x99:
                guard object.value.count == 2 else { throw fail(.malformedResponse, "DO'99' of \(object.value.count) bytes") }
                status = StatusWord(object.value[0], object.value[1])
            default:
                throw fail(.malformedResponse, "unexpected data object '\(SMTLV.hexTag(object.tag))' in the response")
            }
        }
        guard let status else { throw fail(.malformedResponse, "DO'99' (processing status) missing") }
        return ResponseAPDU(data: plain, statusWord: status)
    }

    // MARK: - Chip side

    /// Chip side: increments the SSC, verifies and unwraps a protected command.
    public mutating func unprotectCommand(_ command: CommandAPDU) throws(SecureMessagingError) -> CommandAPDU {
        try guarded { (s) throws(SecureMessagingError) in try s.unprotectIncoming(command) }
    }

    private mutating func unprotectIncoming(_ command: CommandAPDU) throws(SecureMessagingError) -> CommandAPDU {
        incrementSSC()
        guard command.isSecureMessaging else {
            throw fail(.malformedResponse, "command without secure messaging (CLA \(SMTLV.hexTag(UInt32(command.cla))))")
        }
        guard let objects = SMTLV.parse(command.data) else {
            throw fail(.malformedResponse, "command data objects are not valid BER-TLV")
        }
        guard let last = objects.last, last.tag == 0x8E, last.value.count == 8 else {
            throw fail(.malformedResponse, "DO'8E' missing, not last or not 8 bytes")
        }
        let authenticated = Array(command.data[..<last.offset])
        let expected = try mac(paddedHeader(command.cla, command.ins, command.p1, command.p2) + authenticated)
        guard ConstantTime.equals(expected, last.value) else {
            throw fail(.macMismatch, "command MAC (DO'8E') does not verify")
        }
        var data: [UInt8] = []
        var ne: Int?
        for object in objects.dropLast() {
            switch object.tag {
            case 0x87:
                guard object.value.first == 0x01 else { throw fail(.malformedResponse, "DO'87' without padding-content indicator 01") }
                data = try decrypt(Array(object.value.dropFirst()))
            case 0x85:
                data = try decrypt(object.value)
            case 0x97:
                guard let value = Self.decodeLe(object.value) else { throw fail(.malformedResponse, "DO'97' of \(object.value.count) bytes") }
                ne = value
            default:
                throw fail(.malformedResponse, "unexpected data object '\(SMTLV.hexTag(object.tag))' in the command")
            }
        }
        guard data.count <= 65535 else { throw fail(.commandTooLong, "plain data of \(data.count) bytes") }
        lastCommandINS = command.ins
        return CommandAPDU(cla: command.cla & ~0x0C, ins: command.ins, p1: command.p1, p2: command.p2, data: data, ne: ne)
    }

    /// Chip side: increments the SSC and wraps a response (DO'87' — or DO'85' after an odd-INS
    /// command — DO'99', DO'8E'); the outer status word repeats the plain one.
    public mutating func protectResponse(_ response: ResponseAPDU) throws(SecureMessagingError) -> ResponseAPDU {
        try guarded { (s) throws(SecureMessagingError) in try s.protectOutgoing(response) }
    }

    private mutating func protectOutgoing(_ response: ResponseAPDU) throws(SecureMessagingError) -> ResponseAPDU {
        incrementSSC()
        var objects: [UInt8] = []
        if !response.data.isEmpty {
            let cryptogram = try encrypt(response.data)
            objects += lastCommandINS & 1 == 1 ? SMTLV.encode(0x85, cryptogram) : SMTLV.encode(0x87, [0x01] + cryptogram)
        }
        objects += SMTLV.encode(0x99, [response.statusWord.sw1, response.statusWord.sw2])
        let cc = try mac(objects)
        return ResponseAPDU(data: objects + SMTLV.encode(0x8E, cc), statusWord: response.statusWord)
    }

    // MARK: - PACE-CAM

    /// Encrypts with the session's encryption key in the way PACE-CAM's encrypted chip data uses
    /// (AES-CBC, IV = E(KSenc, FF…FF), padding method 2; ICAO 9303-11 §4.4.3.5.2). AES sessions only.
    /// Does not touch the SSC.
    public func encryptCAMData(_ data: [UInt8]) throws(SecureMessagingError) -> [UInt8] {
        do {
            let iv = try camIV()
            return try AES.encryptCBC(key: keys.encryption, iv: iv, Padding.pad(data, blockSize: 16))
        } catch {
            throw fail(.decryptionFailed, "CAM data encryption failed: \(error.code.rawValue)")
        }
    }

    public func decryptCAMData(_ data: [UInt8]) throws(SecureMessagingError) -> [UInt8] {
        do {
            let iv = try camIV()
            return try Padding.unpad(AES.decryptCBC(key: keys.encryption, iv: iv, data), blockSize: 16)
        } catch {
            throw fail(.decryptionFailed, "CAM data decryption failed: \(error.code.rawValue)")
        }
    }

    private func camIV() throws(CryptoError) -> [UInt8] {
        guard keys.cipher != .tripleDES else {
            throw CryptoError(.unsupportedAlgorithm, function: "SecureMessagingSession.camIV", "PACE-CAM requires AES")
        }
        return try AES.encryptECB(key: keys.encryption, [UInt8](repeating: 0xFF, count: 16))
    }
}

/// The few BER-TLV data objects of secure messaging (one-byte tags, lengths up to '82 xx xx').
enum SMTLV {
    struct Object {
        var tag: UInt32
        /// Offset of the object's first byte in the parsed buffer.
        var offset: Int
        var value: [UInt8]
    }

    static func encode(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        let n = value.count
        if n < 0x80 { out.append(UInt8(n)) }
        else if n <= 0xFF { out += [0x81, UInt8(n)] }
        else { out += [0x82, UInt8(n >> 8), UInt8(n & 0xFF)] }
        return out + value
    }

    /// Parses a flat sequence of primitive data objects; nil on any structural error.
    static func parse(_ bytes: [UInt8]) -> [Object]? {
        var objects: [Object] = []
        var i = 0
        while i < bytes.count {
            let start = i
            var tag = UInt32(bytes[i]); i += 1
            if tag & 0x1F == 0x1F {  // multi-byte tag (not used by SM, tolerated)
                repeat {
                    guard i < bytes.count, objects.count < 64 else { return nil }
                    tag = tag << 8 | UInt32(bytes[i]); i += 1
                } while bytes[i - 1] & 0x80 != 0 && tag <= 0xFFFFFF
            }
            guard i < bytes.count else { return nil }
            var length = Int(bytes[i]); i += 1
            if length > 0x80 {
                let count = length & 0x7F
                guard count <= 3, i + count <= bytes.count else { return nil }
                length = 0
                for _ in 0..<count { length = length << 8 | Int(bytes[i]); i += 1 }
            } else if length == 0x80 {
                return nil  // indefinite length
            }
            guard i + length <= bytes.count else { return nil }
            objects.append(Object(tag: tag, offset: start, value: Array(bytes[i..<(i + length)])))
            i += length
        }
        return objects
    }

    static func hexTag(_ tag: UInt32) -> String {
        let digits = Array("0123456789ABCDEF")
        var s = ""
        var started = false
        for shift in stride(from: 24, through: 0, by: -8) {
            let b = UInt8(tag >> UInt32(shift) & 0xFF)
            if b == 0 && !started && shift > 0 { continue }
            started = true
            s.append(digits[Int(b >> 4)]); s.append(digits[Int(b & 0xF)])
        }
        return s
    }
}
