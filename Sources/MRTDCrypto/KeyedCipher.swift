internal import CLibCrypto
import Synchronization

/// One EVP_CIPHER_CTX keyed once for one direction of CBC without padding. The key schedule stays in
/// the context, and so does the CBC chaining value between calls: OpenSSL keeps the last ciphertext
/// block as the IV of the next `EVP_CipherUpdate`. Re-initialising the context for each new IV costs
/// more than the cipher itself for short messages (OpenSSL 3 re-reads the IV length and padding
/// through provider parameters), so a new IV is applied instead by one block XOR: CBC under IV v from
/// chaining value x equals CBC from x with the first plaintext block XORed with v ⊕ x (encryption), or
/// with the first plaintext block out XORed with x ⊕ v (decryption). The context tracks x itself.
/// Freeing the context wipes the key schedule.
///
/// Mutable C state: used only under the lock of the object that owns it (hence `@unchecked Sendable`).
private final class KeyedContext: @unchecked Sendable {
    let pointer: OpaquePointer
    let blockSize: Int
    /// The chaining value the context holds: the IV of the next block it will process. (Accessed only
    /// under the owner's lock, so without the runtime's exclusivity bookkeeping.)
    @exclusivity(unchecked) private var chain: (UInt64, UInt64) = (0, 0)
    /// False after a failed update (the context's state is then unknown): the next call re-initialises.
    @exclusivity(unchecked) private var inStep = true

    init(cipher: OpaquePointer, key: UnsafeRawBufferPointer, encrypt: Bool, blockSize: Int, function: String) throws(CryptoError) {
        let ctx = try OpenSSL.check(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new")
        let keyBase = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let ok = zeroBlock.withUnsafeBufferPointer { zero in
            EVP_CipherInit_ex(ctx, cipher, nil, keyBase, zero.baseAddress, encrypt ? 1 : 0) == 1 && EVP_CIPHER_CTX_set_padding(ctx, 0) == 1
        }
        guard ok else {
            let error = OpenSSL.error("\(function): EVP_CipherInit_ex")
            EVP_CIPHER_CTX_free(ctx)
            throw error
        }
        pointer = ctx
        self.blockSize = blockSize
    }

    deinit {
        withUnsafeMutableBytes(of: &chain) { OPENSSL_cleanse($0.baseAddress, $0.count) }
        EVP_CIPHER_CTX_free(pointer)
    }

    /// Re-initialises the chaining value to zero after a failure; false if even that fails.
    private func resynchronise() -> Bool {
        if inStep { return true }
        let ok = zeroBlock.withUnsafeBufferPointer { EVP_CipherInit_ex(pointer, nil, nil, nil, $0.baseAddress, -1) == 1 }
        if ok {
            chain = (0, 0)
            inStep = true
        }
        return ok
    }

    /// Marks the context out of step (after a failure in a multi-call operation); the next call re-initialises.
    func invalidate() { inStep = false }

    /// XORs `block` (one block) with the chaining value.
    private func xorChain(into block: UnsafeMutableRawPointer) {
        withUnsafeBytes(of: &chain) { c in
            for i in 0..<blockSize { block.storeBytes(of: block.load(fromByteOffset: i, as: UInt8.self) ^ c[i], toByteOffset: i, as: UInt8.self) }
        }
    }

    /// Feeds `count` bytes (any length; a partial block waits inside the context) from the current
    /// chaining value. Returns the bytes written — whole blocks — and keeps the chaining value in step;
    /// nil on failure. `output` (not `input`) must have room for `count` + one block.
    func update(_ input: UnsafeRawPointer, count: Int, _ output: UnsafeMutableRawPointer) -> Int? {
        guard resynchronise() else { return nil }
        if count == 0 { return 0 }
        var written: Int32 = 0
        guard EVP_CipherUpdate(pointer, output.assumingMemoryBound(to: UInt8.self), &written,
                               input.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1 else {
            inStep = false
            return nil
        }
        let w = Int(written)
        if w > 0 {
            withUnsafeMutableBytes(of: &chain) { $0.baseAddress!.copyMemory(from: output + (w - blockSize), byteCount: blockSize) }
        }
        return w
    }

    /// CBC encryption under `iv` (one block; nil = zero) of whole blocks, in place.
    func encrypt(iv: UnsafeRawPointer?, inPlace buffer: UnsafeMutableRawPointer, count: Int) -> Bool {
        guard count > 0 else { return true }
        guard resynchronise() else { return false }
        // first block ⊕ iv ⊕ chain: the context's chain then plays the part of the IV
        if let iv { for i in 0..<blockSize { buffer.storeBytes(of: buffer.load(fromByteOffset: i, as: UInt8.self) ^ iv.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self) } }
        xorChain(into: buffer)
        return update(buffer, count: count, buffer) == count
    }

    /// CBC decryption under `iv` (one block; nil = zero) of whole blocks; `output` may be `input`.
    func decrypt(iv: UnsafeRawPointer?, _ input: UnsafeRawPointer, count: Int, _ output: UnsafeMutableRawPointer) -> Bool {
        guard count > 0 else { return true }
        guard resynchronise() else { return false }
        var previous = chain
        var last: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &last) { $0.baseAddress!.copyMemory(from: input + (count - blockSize), byteCount: blockSize) }
        var written: Int32 = 0
        guard EVP_CipherUpdate(pointer, output.assumingMemoryBound(to: UInt8.self), &written,
                               input.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1, Int(written) == count else {
            inStep = false
            return false
        }
        chain = last
        // the first block came out ⊕ the old chain; it must be ⊕ iv
        withUnsafeMutableBytes(of: &previous) { p in
            if let iv { for i in 0..<blockSize { p[i] ^= iv.load(fromByteOffset: i, as: UInt8.self) } }
            for i in 0..<blockSize { output.storeBytes(of: output.load(fromByteOffset: i, as: UInt8.self) ^ p[i], toByteOffset: i, as: UInt8.self) }
        }
        return true
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
            (try KeyedContext(cipher: cipher, key: k, encrypt: true, blockSize: algorithm.blockSize, function: function),
             try KeyedContext(cipher: cipher, key: k, encrypt: false, blockSize: algorithm.blockSize, function: function))
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
        let ok = contexts.withLock { c in
            if encrypt {
                if input.baseAddress != UnsafeRawPointer(output.baseAddress) {
                    output.baseAddress!.copyMemory(from: input.baseAddress!, byteCount: input.count)
                }
                return c.encrypt.encrypt(iv: iv?.baseAddress, inPlace: output.baseAddress!, count: input.count)
            }
            return c.decrypt.decrypt(iv: iv?.baseAddress, input.baseAddress!, count: input.count, output.baseAddress!)
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
                    return try KeyedContext(cipher: FetchedCipher.desEDECBC.pointer, key: UnsafeRawBufferPointer(kk), encrypt: true,
                                            blockSize: 8, function: function)
                }
                let full = try KeyedContext(cipher: FetchedCipher.desEDECBC.pointer, key: k, encrypt: true, blockSize: 8, function: function)
                return State(chaining: single, final: full, subkey: [])
            }
            state = Mutex(s)
        case .aes128, .aes192, .aes256:
            let cipher = try cbcCipher(algorithm, keyLength: key.count)
            let ctx = try key.withBytes { (k) throws(CryptoError) in
                try KeyedContext(cipher: cipher, key: k, encrypt: true, blockSize: 16, function: function)
            }
            // L = E(K, 0^128), K1 = dbl(L)
            var l = [UInt8](repeating: 0, count: 16)
            let ok = l.withUnsafeMutableBytes { ctx.encrypt(iv: nil, inPlace: $0.baseAddress!, count: 16) }
            guard ok else { throw OpenSSL.error("\(function): EVP_CipherUpdate") }
            var k1 = AESCMAC.double(l)
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
            // CBC-MAC state (zero IV), and the first and last blocks assembled from the parts
            var mac: (UInt64, UInt64) = (0, 0), first: (UInt64, UInt64) = (0, 0), last: (UInt64, UInt64) = (0, 0)
            return withUnsafeMutableBytes(of: &mac) { macBytes -> Bool in
                withUnsafeMutableBytes(of: &first) { firstBytes -> Bool in
                    withUnsafeMutableBytes(of: &last) { lastBytes -> Bool in
                        let scratch = s.scratch.baseAddress!
                        /// Calls `body` with the pieces of the parts that fall in `range` of their concatenation.
                        func pieces(_ range: Range<Int>, _ body: (UnsafeRawPointer, Int, Int) -> Bool) -> Bool {
                            var offset = 0
                            func visit(_ part: UnsafeRawBufferPointer) -> Bool {
                                defer { offset += part.count }
                                guard let base = part.baseAddress else { return true }
                                let from = max(range.lowerBound, offset), to = min(range.upperBound, offset + part.count)
                                return from >= to || body(base + (from - offset), to - from, from - range.lowerBound)
                            }
                            return visit(a) && visit(b) && visit(c)
                        }
                        if head > 0 {
                            // the first block, started from a zero IV, then the rest of the complete blocks streamed
                            _ = pieces(0..<bs) { src, n, at in (firstBytes.baseAddress! + at).copyMemory(from: src, byteCount: n); return true }
                            guard s.chaining.encrypt(iv: nil, inPlace: firstBytes.baseAddress!, count: bs) else { return false }
                            macBytes.copyMemory(from: UnsafeRawBufferPointer(rebasing: firstBytes[0..<bs]))
                            var written = bs
                            let streamed = pieces(bs..<head) { src, n, _ in
                                var p = 0
                                while p < n {
                                    let chunk = min(n - p, KeyedMAC.scratchSize)
                                    guard let w = s.chaining.update(src + p, count: chunk, scratch) else { return false }
                                    if w > 0 { macBytes.baseAddress!.copyMemory(from: scratch + (w - bs), byteCount: bs) }
                                    written += w
                                    p += chunk
                                }
                                return true
                            }
                            guard streamed, written == head else {
                                s.chaining.invalidate()  // a partial block may be left inside the context
                                return false
                            }
                        }
                        _ = pieces(head..<total) { src, n, at in (lastBytes.baseAddress! + at).copyMemory(from: src, byteCount: n); return true }
                        lastBytes[total - head] = 0x80
                        if s.final == nil {
                            // AES-CMAC: the last block (complete after padding) XOR K1
                            for i in 0..<bs { lastBytes[i] ^= s.subkey[i] }
                        }
                        // AES: one more CBC step from the state; retail MAC: output transformation 3 folded into
                        // one 2-key 3DES-CBC step from the state
                        guard (s.final ?? s.chaining).encrypt(iv: macBytes.baseAddress!, inPlace: lastBytes.baseAddress!, count: bs) else {
                            return false
                        }
                        output.copyMemory(from: UnsafeRawBufferPointer(rebasing: lastBytes[0..<output.count]))
                        return true
                    }
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
