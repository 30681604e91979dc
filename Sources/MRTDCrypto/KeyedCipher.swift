internal import CLibCrypto
import Synchronization

/// One EVP_CIPHER_CTX keyed once for one direction of CBC without padding: the key schedule stays in
/// the context, and each operation only sets a new IV (`EVP_CipherInit_ex` with a NULL cipher and key
/// keeps both; ISO C API of OpenSSL 3). Freeing the context wipes the key schedule.
/// Mutable C state: used only under the lock of the object that owns it (hence `@unchecked Sendable`).
private final class KeyedContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(cipher: OpaquePointer, key: UnsafeRawBufferPointer, encrypt: Bool, function: String) throws(CryptoError) {
        let ctx = try OpenSSL.check(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new")
        let keyBase = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard EVP_CipherInit_ex(ctx, cipher, nil, keyBase, nil, encrypt ? 1 : 0) == 1,
              EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 else {
            let error = OpenSSL.error("\(function): EVP_CipherInit_ex")
            EVP_CIPHER_CTX_free(ctx)
            throw error
        }
        pointer = ctx
    }

    deinit { EVP_CIPHER_CTX_free(pointer) }

    /// CBC over `count` bytes (whole blocks) with `iv` (one block); `output` may be `input` (in place).
    func run(iv: UnsafeRawPointer, _ input: UnsafeRawPointer, count: Int, _ output: UnsafeMutableRawPointer) -> Bool {
        guard EVP_CipherInit_ex(pointer, nil, nil, nil, iv.assumingMemoryBound(to: UInt8.self), -1) == 1 else { return false }
        guard count > 0 else { return true }
        var written: Int32 = 0
        guard EVP_CipherUpdate(pointer, output.assumingMemoryBound(to: UInt8.self), &written,
                               input.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1 else { return false }
        return Int(written) == count
    }

    /// Continues the chain of the last `run` (no new IV) over `count` bytes; partial blocks are kept
    /// inside the context until completed. Returns the bytes written (whole blocks), nil on failure.
    /// `output` must have room for `count` + one block.
    func update(_ input: UnsafeRawPointer, count: Int, _ output: UnsafeMutableRawPointer) -> Int? {
        var written: Int32 = 0
        guard EVP_CipherUpdate(pointer, output.assumingMemoryBound(to: UInt8.self), &written,
                               input.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1 else { return nil }
        return Int(written)
    }
}

/// The all-zero IV (the largest block size).
private let zeroBlock = [UInt8](repeating: 0, count: 16)

/// The CBC implementation for the key, chosen by its length within the algorithm's family, as the
/// one-shot `AES` and `TripleDES` functions choose it.
private func cbcCipher(_ algorithm: CipherAlgorithm, keyLength: Int) throws(CryptoError) -> OpaquePointer {
    switch algorithm {
    case .tripleDES: return try TripleDES.cbcCipher(keyLength: keyLength)
    case .aes128, .aes192, .aes256: return try AES.cipher(keyLength: keyLength, cbc: true)
    }
}

/// A block cipher (3DES or AES, CBC without padding) keyed once for many operations under the same
/// key, as a secure-messaging session needs for KSenc: the key schedules (one per direction) are
/// computed when the object is made, and each call only sets the IV. The static `AES` and `TripleDES`
/// functions, which key a fresh context per call, give the same results.
///
/// Thread-safe: the contexts are used under a lock, so values holding this object may be copied and
/// used from different tasks. Never prints key material.
public final class KeyedBlockCipher: Sendable, CustomStringConvertible {
    private struct Contexts {
        let encrypt: KeyedContext
        let decrypt: KeyedContext
    }

    public let algorithm: CipherAlgorithm
    private let contexts: Mutex<Contexts>

    /// Throws `.invalidKey` when the key length does not fit the family (16 or 24 bytes for 3DES; 16, 24
    /// or 32 for AES — the length chooses the AES variant, as in `AES.encryptCBC`).
    public init(_ algorithm: CipherAlgorithm, key: SecretBytes) throws(CryptoError) {
        let function = "KeyedBlockCipher"
        let cipher = try cbcCipher(algorithm, keyLength: key.count)
        let (e, d) = try key.withBytes { (k) throws(CryptoError) in
            (try KeyedContext(cipher: cipher, key: k, encrypt: true, function: function),
             try KeyedContext(cipher: cipher, key: k, encrypt: false, function: function))
        }
        self.algorithm = algorithm
        contexts = Mutex(Contexts(encrypt: e, decrypt: d))
    }

    public var blockSize: Int { algorithm.blockSize }
    public var description: String { "KeyedBlockCipher(\(algorithm.rawValue), key redacted)" }

    private func run(encrypt: Bool, iv: UnsafeRawBufferPointer?, _ input: UnsafeRawBufferPointer,
                     into output: UnsafeMutableRawBufferPointer, _ function: String) throws(CryptoError) {
        let bs = algorithm.blockSize
        guard input.count % bs == 0 else {
            throw CryptoError(.invalidInput, function: function, "data length \(input.count) is not a multiple of \(bs)")
        }
        guard output.count >= input.count else {
            throw CryptoError(.invalidInput, function: function, "output of \(output.count) bytes for \(input.count) bytes")
        }
        if let iv, iv.count != bs {
            throw CryptoError(.invalidInput, function: function, "IV length \(iv.count), expected \(bs)")
        }
        if input.isEmpty { return }
        let ok = zeroBlock.withUnsafeBytes { zero in
            let ivBase = iv?.baseAddress ?? zero.baseAddress!
            return contexts.withLock { c in
                (encrypt ? c.encrypt : c.decrypt).run(iv: ivBase, input.baseAddress!, count: input.count, output.baseAddress!)
            }
        }
        if !ok { throw OpenSSL.error("\(function): EVP_CipherUpdate") }
    }

    /// CBC encryption of whole blocks from `input` into `output` (at least as long; may be the same
    /// memory as `input`). `iv`: one block, nil for the zero IV.
    public func encryptCBC(iv: UnsafeRawBufferPointer?, _ input: UnsafeRawBufferPointer,
                           into output: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        try run(encrypt: true, iv: iv, input, into: output, "KeyedBlockCipher.encryptCBC")
    }

    /// CBC decryption of whole blocks from `input` into `output` (at least as long; may be the same
    /// memory as `input`). `iv`: one block, nil for the zero IV.
    public func decryptCBC(iv: UnsafeRawBufferPointer?, _ input: UnsafeRawBufferPointer,
                           into output: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        try run(encrypt: false, iv: iv, input, into: output, "KeyedBlockCipher.decryptCBC")
    }

    public func encryptCBC(iv: [UInt8]? = nil, _ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try array(encrypt: true, iv: iv, data)
    }

    public func decryptCBC(iv: [UInt8]? = nil, _ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try array(encrypt: false, iv: iv, data)
    }

    private func array(encrypt: Bool, iv: [UInt8]?, _ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        let function = encrypt ? "KeyedBlockCipher.encryptCBC" : "KeyedBlockCipher.decryptCBC"
        var ivStorage: (UInt64, UInt64) = (0, 0)
        if let iv {
            guard iv.count == algorithm.blockSize else {
                throw CryptoError(.invalidInput, function: function, "IV length \(iv.count), expected \(algorithm.blockSize)")
            }
            withUnsafeMutableBytes(of: &ivStorage) { s in iv.withUnsafeBytes { s.copyMemory(from: $0) } }
        }
        var out = [UInt8](repeating: 0, count: data.count)
        var failure: CryptoError?
        let bs = algorithm.blockSize
        withUnsafeBytes(of: &ivStorage) { ivBytes in
            data.withUnsafeBytes { input in
                out.withUnsafeMutableBytes { output in
                    do throws(CryptoError) {
                        try run(encrypt: encrypt, iv: iv == nil ? nil : UnsafeRawBufferPointer(rebasing: ivBytes[0..<bs]),
                                input, into: output, function)
                    } catch {
                        failure = error
                    }
                }
            }
        }
        if let failure { throw failure }
        return out
    }
}

/// The MAC of ICAO 9303 secure messaging (ICAO 9303-11 §9.8.6) keyed once for KSmac: the input is
/// padded with ISO/IEC 9797-1 method 2, then authenticated with AES-CMAC (NIST SP 800-38B; the padded
/// message always ends in a complete block, so only the subkey K1 is used) for AES keys, or with
/// ISO/IEC 9797-1 MAC algorithm 3 (the retail MAC) for a 16-byte 3DES key. Equal to
/// `AESCMAC.mac(key:, Padding.pad(data, blockSize: 16))` and `RetailMAC.mac(key:, data)`.
///
/// The key schedules and the CMAC subkey are computed when the object is made; each MAC only sets the
/// IV and streams the input through the chaining context without copying it. Thread-safe (a lock).
public final class KeyedMAC: Sendable, CustomStringConvertible {
    /// Key-derived state that never leaves the lock.
    /// Used only under the lock (hence `@unchecked Sendable`).
    private final class State: @unchecked Sendable {
        /// AES: the key schedule of K. Retail MAC: single DES under K1 (as two-key EDE with K1 || K1).
        let chaining: KeyedContext
        /// Retail MAC only: 2-key 3DES under the whole key, for the output transformation.
        let final: KeyedContext?
        /// AES-CMAC subkey K1 (SP 800-38B §6.1); wiped when the object goes.
        let subkey: UnsafeMutableRawBufferPointer
        /// Output of the chaining context (never read but for the last block).
        let scratch: UnsafeMutableRawBufferPointer

        init(chaining: KeyedContext, final: KeyedContext?, subkey: [UInt8]) {
            self.chaining = chaining
            self.final = final
            let k = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 16)
            k.initializeMemory(as: UInt8.self, repeating: 0)
            subkey.withUnsafeBytes { k.copyMemory(from: $0) }
            self.subkey = k
            scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: KeyedMAC.scratchSize + 16, alignment: 16)
        }
        deinit {
            OPENSSL_cleanse(subkey.baseAddress, subkey.count)
            OPENSSL_cleanse(scratch.baseAddress, scratch.count)
            subkey.deallocate()
            scratch.deallocate()
        }
    }

    static let scratchSize = 1024

    public let algorithm: CipherAlgorithm
    private let state: Mutex<State>

    /// Throws `.invalidKey` for a key that does not fit (the retail MAC takes 16 bytes).
    public init(_ algorithm: CipherAlgorithm, key: SecretBytes) throws(CryptoError) {
        let function = "KeyedMAC"
        self.algorithm = algorithm
        switch algorithm {
        case .tripleDES:
            guard key.count == 16 else {
                throw CryptoError(.invalidKey, function: function, "key length \(key.count), expected 16")
            }
            let s = try key.withBytes { (k) throws(CryptoError) -> State in
                // single DES under K1 as two-key EDE with K1 || K1
                var k1k1: (UInt64, UInt64) = (0, 0)
                defer { withUnsafeMutableBytes(of: &k1k1) { OPENSSL_cleanse($0.baseAddress, $0.count) } }
                let single = try withUnsafeMutableBytes(of: &k1k1) { (kk) throws(CryptoError) in
                    kk.baseAddress!.copyMemory(from: k.baseAddress!, byteCount: 8)
                    (kk.baseAddress! + 8).copyMemory(from: k.baseAddress!, byteCount: 8)
                    return try KeyedContext(cipher: FetchedCipher.desEDECBC.pointer, key: UnsafeRawBufferPointer(kk), encrypt: true, function: function)
                }
                let full = try KeyedContext(cipher: FetchedCipher.desEDECBC.pointer, key: k, encrypt: true, function: function)
                return State(chaining: single, final: full, subkey: [])
            }
            state = Mutex(s)
        case .aes128, .aes192, .aes256:
            let cipher = try cbcCipher(algorithm, keyLength: key.count)
            let ctx = try key.withBytes { (k) throws(CryptoError) in
                try KeyedContext(cipher: cipher, key: k, encrypt: true, function: function)
            }
            // L = E(K, 0^128), K1 = dbl(L)
            var l = [UInt8](repeating: 0, count: 16)
            let ok = zeroBlock.withUnsafeBytes { z in
                l.withUnsafeMutableBytes { ctx.run(iv: z.baseAddress!, z.baseAddress!, count: 16, $0.baseAddress!) }
            }
            guard ok else { throw OpenSSL.error("\(function): EVP_CipherUpdate") }
            var k1 = [UInt8](repeating: 0, count: 16)
            var carry: UInt8 = 0
            for i in stride(from: 15, through: 0, by: -1) {
                k1[i] = l[i] << 1 | carry
                carry = l[i] >> 7
            }
            if carry == 1 { k1[15] ^= 0x87 }
            state = Mutex(State(chaining: ctx, final: nil, subkey: k1))
            for i in 0..<16 { l[i] = 0; k1[i] = 0 }
        }
    }

    /// 16 (AES-CMAC) or 8 (retail MAC).
    public var macLength: Int { algorithm.blockSize }
    public var description: String { "KeyedMAC(\(algorithm.rawValue), key redacted)" }

    /// The MAC over pad(a || b || c) (ISO/IEC 9797-1 padding method 2 applied here), its first
    /// `output.count` bytes (at most `macLength`) written to `output`. The parts are not copied: the
    /// complete blocks stream through the chaining context, and only the last block is assembled.
    public func macPadded(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, _ c: UnsafeRawBufferPointer,
                          into output: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        let function = "KeyedMAC.macPadded"
        let bs = algorithm.blockSize
        guard output.count <= bs else {
            throw CryptoError(.invalidInput, function: function, "output of \(output.count) bytes, the MAC has \(bs)")
        }
        let total = a.count + b.count + c.count
        let head = total / bs * bs  // the complete blocks; the padded last block follows
        let ok: Bool = state.withLock { s in
            var chain: (UInt64, UInt64) = (0, 0)
            var last: (UInt64, UInt64) = (0, 0)
            return withUnsafeMutableBytes(of: &chain) { chainBytes -> Bool in
                withUnsafeMutableBytes(of: &last) { lastBytes -> Bool in
                    let scratch = s.scratch.baseAddress!
                    // zero IV (also drops any state a failed call left)
                    guard zeroBlock.withUnsafeBytes({ s.chaining.run(iv: $0.baseAddress!, $0.baseAddress!, count: 0, scratch) }) else {
                        return false
                    }
                    var offset = 0
                    var written = 0
                    func feed(_ part: UnsafeRawBufferPointer) -> Bool {
                        guard let base = part.baseAddress, !part.isEmpty else { return true }
                        defer { offset += part.count }
                        let before = max(0, min(part.count, head - offset))
                        var p = 0
                        while p < before {
                            let n = min(before - p, KeyedMAC.scratchSize)
                            guard let w = s.chaining.update(base + p, count: n, scratch) else { return false }
                            if w > 0 { chainBytes.baseAddress!.copyMemory(from: scratch + (w - bs), byteCount: bs) }
                            written += w
                            p += n
                        }
                        if before < part.count {
                            (lastBytes.baseAddress! + (offset + before - head)).copyMemory(from: base + before, byteCount: part.count - before)
                        }
                        return true
                    }
                    guard feed(a), feed(b), feed(c), written == head else { return false }
                    lastBytes[total - head] = 0x80
                    if s.final == nil {
                        // AES-CMAC: the last block (complete after padding) XOR K1
                        for i in 0..<bs { lastBytes[i] ^= s.subkey[i] }
                    }
                    // AES: one more CBC step from the chain; retail MAC: output transformation 3 folded into
                    // one 2-key 3DES-CBC step from the chain
                    guard (s.final ?? s.chaining).run(iv: chainBytes.baseAddress!, lastBytes.baseAddress!, count: bs, scratch) else {
                        return false
                    }
                    output.copyMemory(from: UnsafeRawBufferPointer(start: scratch, count: output.count))
                    return true
                }
            }
        }
        if !ok { throw OpenSSL.error("\(function): EVP_CipherUpdate") }
    }

    /// The full MAC over pad(data).
    public func macPadded(_ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: macLength)
        var failure: CryptoError?
        data.withUnsafeBytes { d in
            out.withUnsafeMutableBytes { o in
                let empty = UnsafeRawBufferPointer(start: nil, count: 0)
                do throws(CryptoError) { try macPadded(d, empty, empty, into: o) } catch { failure = error }
            }
        }
        if let failure { throw failure }
        return out
    }
}
