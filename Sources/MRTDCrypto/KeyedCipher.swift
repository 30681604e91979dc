internal import CLibCrypto
import Synchronization

/// The all-zero IV (the largest block size), for CBC started from zero.
nonisolated(unsafe) private let zeroIV: UnsafeMutableRawPointer = {
    let p = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
    p.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
    return p
}()

/// One EVP_CIPHER_CTX keyed once for one direction of CBC without padding. The key schedule stays in the
/// context; every operation hands its IV to OpenSSL (`EVP_CipherInit_ex` with only the IV), so all the
/// chaining is OpenSSL's own. Freeing the context wipes the key schedule.
///
/// Mutable C state: used only under the lock of the object that owns it (hence `@unchecked Sendable`).
private final class KeyedContext: @unchecked Sendable {
    let pointer: OpaquePointer

    init(cipher: OpaquePointer, key: UnsafeRawBufferPointer, encrypt: Bool, function: String) throws(CryptoError) {
        let ctx = try OpenSSL.check(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new")
        let keyBase = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard
            EVP_CipherInit_ex(ctx, cipher, nil, keyBase, zeroIV.assumingMemoryBound(to: UInt8.self), encrypt ? 1 : 0)
                == 1,
            EVP_CIPHER_CTX_set_padding(ctx, 0) == 1
        else {
            let error = OpenSSL.error("\(function): EVP_CipherInit_ex")
            EVP_CIPHER_CTX_free(ctx)
            throw error
        }
        pointer = ctx
    }

    deinit { EVP_CIPHER_CTX_free(pointer) }

    /// Starts a new CBC operation under `iv` (one block; nil = zero), keeping the key.
    func start(iv: UnsafeRawPointer?) -> Bool {
        EVP_CipherInit_ex(
            pointer, nil, nil, nil, (iv ?? UnsafeRawPointer(zeroIV)).assumingMemoryBound(to: UInt8.self), -1) == 1
    }

    /// Feeds `count` bytes (whole blocks, or a stream whose total is whole blocks) and returns the bytes
    /// written; `output` must have room for `count` + one block and may be `input`.
    func update(_ input: UnsafeRawPointer, count: Int, _ output: UnsafeMutableRawPointer) -> Int? {
        if count == 0 { return 0 }
        var written: Int32 = 0
        guard
            EVP_CipherUpdate(
                pointer, output.assumingMemoryBound(to: UInt8.self), &written,
                input.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1
        else { return nil }
        return Int(written)
    }

    /// CBC under `iv` (nil = zero) of whole blocks; `output` may be `input`.
    func cbc(iv: UnsafeRawPointer?, _ input: UnsafeRawPointer, count: Int, _ output: UnsafeMutableRawPointer) -> Bool {
        guard count > 0 else { return true }
        return start(iv: iv) && update(input, count: count, output) == count
    }
}

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
/// computed when the object is made, and each call passes its IV to OpenSSL. The static `AES` and
/// `TripleDES` functions, which key a fresh context per call, give the same results.
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
            (
                try KeyedContext(cipher: cipher, key: k, encrypt: true, function: function),
                try KeyedContext(cipher: cipher, key: k, encrypt: false, function: function)
            )
        }
        self.algorithm = algorithm
        contexts = Mutex(Contexts(encrypt: e, decrypt: d))
    }

    public var blockSize: Int { algorithm.blockSize }
    public var description: String { "KeyedBlockCipher(\(algorithm.rawValue), key redacted)" }

    private func run(
        encrypt: Bool, iv: UnsafeRawBufferPointer?, _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer, _ function: String
    ) throws(CryptoError) {
        let bs = algorithm.blockSize
        guard input.count % bs == 0 else {
            throw CryptoError(
                .invalidInput, function: function, "data length \(input.count) is not a multiple of \(bs)")
        }
        guard output.count >= input.count else {
            throw CryptoError(
                .invalidInput, function: function, "output of \(output.count) bytes for \(input.count) bytes")
        }
        if let iv, iv.count != bs {
            throw CryptoError(.invalidInput, function: function, "IV length \(iv.count), expected \(bs)")
        }
        if input.isEmpty { return }
        let ok = contexts.withLock { c in
            (encrypt ? c.encrypt : c.decrypt).cbc(
                iv: iv?.baseAddress, input.baseAddress!, count: input.count, output.baseAddress!)
        }
        if !ok { throw OpenSSL.error("\(function): EVP_CipherUpdate") }
    }

    /// CBC encryption of whole blocks from `input` into `output` (at least as long; may be the same
    /// memory as `input`). `iv`: one block, nil for the zero IV.
    public func encryptCBC(
        iv: UnsafeRawBufferPointer?, _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        try run(encrypt: true, iv: iv, input, into: output, "KeyedBlockCipher.encryptCBC")
    }

    /// CBC decryption of whole blocks from `input` into `output` (at least as long; may be the same
    /// memory as `input`). `iv`: one block, nil for the zero IV.
    public func decryptCBC(
        iv: UnsafeRawBufferPointer?, _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
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
        var out = [UInt8](repeating: 0, count: data.count)
        var failure: CryptoError?
        data.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in
                do throws(CryptoError) {
                    if let iv {
                        var ivFailure: CryptoError?
                        iv.withUnsafeBytes { v in
                            do throws(CryptoError) {
                                try run(encrypt: encrypt, iv: v, input, into: output, function)
                            } catch {
                                ivFailure = error
                            }
                        }
                        if let ivFailure { throw ivFailure }
                    } else {
                        try run(encrypt: encrypt, iv: nil, input, into: output, function)
                    }
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
        return out
    }
}

/// An owned EVP_MAC_CTX for AES-CMAC (NIST SP 800-38B), keyed once: OpenSSL's own CMAC implementation.
/// `EVP_MAC_init` with no key restarts a MAC under the key already set.
///
/// Mutable C state: used only under the lock of the object that owns it, or by one caller (hence
/// `@unchecked Sendable`).
final class CMACContext: @unchecked Sendable {
    private let pointer: OpaquePointer

    /// The fetched CMAC implementation, fetched once per process.
    nonisolated(unsafe) private static let mac: OpaquePointer = {
        guard let m = EVP_MAC_fetch(nil, "CMAC", nil) else {
            preconditionFailure("EVP_MAC_fetch(CMAC) failed: \(OpenSSL.drainErrors())")
        }
        return m
    }()

    /// `key`: 16, 24 or 32 bytes (AES-128/192/256).
    init(key: UnsafeRawBufferPointer, function: String) throws(CryptoError) {
        let name: String
        switch key.count {
        case 16: name = "AES-128-CBC"
        case 24: name = "AES-192-CBC"
        case 32: name = "AES-256-CBC"
        default:
            throw CryptoError(.invalidKey, function: function, "AES key length \(key.count), expected 16, 24 or 32")
        }
        let ctx = try OpenSSL.check(EVP_MAC_CTX_new(Self.mac), "\(function): EVP_MAC_CTX_new")
        let ok = "cipher".withCString { paramName in
            name.withCString { cipherName in
                var params = [
                    OSSL_PARAM_construct_utf8_string(paramName, UnsafeMutablePointer(mutating: cipherName), 0),
                    OSSL_PARAM_construct_end(),
                ]
                return EVP_MAC_init(ctx, key.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count, &params) == 1
            }
        }
        guard ok else {
            let error = OpenSSL.error("\(function): EVP_MAC_init")
            EVP_MAC_CTX_free(ctx)
            throw error
        }
        pointer = ctx
    }

    deinit { EVP_MAC_CTX_free(pointer) }

    /// Restarts the MAC under the same key.
    func restart() -> Bool { EVP_MAC_init(pointer, nil, 0, nil) == 1 }

    func update(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return true }
        return EVP_MAC_update(pointer, base.assumingMemoryBound(to: UInt8.self), bytes.count) == 1
    }

    /// Writes the 16-byte tag to `tag`.
    func final(into tag: UnsafeMutableRawPointer) -> Bool {
        var written = 0
        return EVP_MAC_final(pointer, tag.assumingMemoryBound(to: UInt8.self), &written, 16) == 1 && written == 16
    }
}

/// The MAC of ICAO 9303 secure messaging (ICAO 9303-11 §9.8.6) keyed once for KSmac: the input is
/// padded with ISO/IEC 9797-1 method 2, then authenticated with AES-CMAC (NIST SP 800-38B, OpenSSL's
/// `EVP_MAC` "CMAC") for AES keys, or with ISO/IEC 9797-1 MAC algorithm 3 (the retail MAC) for a
/// 16-byte 3DES key. Equal to `AESCMAC.mac(key:, Padding.pad(data, blockSize: 16))` and
/// `RetailMAC.mac(key:, data)`.
///
/// The retail MAC is the one composition done here: OpenSSL has no ISO/IEC 9797-1 MAC algorithm 3, so it is
/// single-DES CBC under K1 over every block but the last (OpenSSL's CBC, zero IV), then the last block through
/// two-key 3DES CBC with the running MAC as IV — which is the algorithm's final iteration and output
/// transformation 3 in one step (E_K1(D_K2(E_K1(x)))).
///
/// The keys are set when the object is made; each MAC streams the input without copying it. Thread-safe (a lock).
public final class KeyedMAC: Sendable, CustomStringConvertible {
    /// Key-derived state that never leaves the lock (hence `@unchecked Sendable`).
    private final class State: @unchecked Sendable {
        enum Kind {
            case cmac(CMACContext)
            /// single: DES under K1 (as two-key EDE with K1 || K1); full: two-key 3DES under K1 || K2.
            case retail(single: KeyedContext, full: KeyedContext)
        }
        let kind: Kind
        /// Output of the chaining context (only its last block is read); wiped when the object goes.
        let scratch: UnsafeMutableRawBufferPointer

        init(_ kind: Kind) {
            self.kind = kind
            scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: KeyedMAC.scratchSize + 16, alignment: 16)
        }
        deinit {
            OPENSSL_cleanse(scratch.baseAddress, scratch.count)
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
                var k1k1: (UInt64, UInt64) = (0, 0)
                defer { withUnsafeMutableBytes(of: &k1k1) { OPENSSL_cleanse($0.baseAddress, $0.count) } }
                let single = try withUnsafeMutableBytes(of: &k1k1) { (kk) throws(CryptoError) in
                    kk.baseAddress!.copyMemory(from: k.baseAddress!, byteCount: 8)
                    (kk.baseAddress! + 8).copyMemory(from: k.baseAddress!, byteCount: 8)
                    return try KeyedContext(
                        cipher: FetchedCipher.desEDECBC.pointer, key: UnsafeRawBufferPointer(kk),
                        encrypt: true, function: function)
                }
                let full = try KeyedContext(
                    cipher: FetchedCipher.desEDECBC.pointer, key: k, encrypt: true, function: function)
                return State(.retail(single: single, full: full))
            }
            state = Mutex(s)
        case .aes128, .aes192, .aes256:
            let cmac = try key.withBytes { (k) throws(CryptoError) in try CMACContext(key: k, function: function) }
            state = Mutex(State(.cmac(cmac)))
        }
    }

    /// 16 (AES-CMAC) or 8 (retail MAC).
    public var macLength: Int { algorithm.blockSize }
    public var description: String { "KeyedMAC(\(algorithm.rawValue), key redacted)" }

    /// The MAC over pad(a || b || c) (ISO/IEC 9797-1 padding method 2 applied here), its first
    /// `output.count` bytes (at most `macLength`) written to `output`. The parts are not copied.
    public func macPadded(
        _ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, _ c: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws(CryptoError) {
        let function = "KeyedMAC.macPadded"
        let bs = algorithm.blockSize
        guard output.count <= bs else {
            throw CryptoError(.invalidInput, function: function, "output of \(output.count) bytes, the MAC has \(bs)")
        }
        let total = a.count + b.count + c.count
        // ISO/IEC 9797-1 method 2: 0x80, then zeros up to the block boundary (always at least one byte)
        var padding: (UInt64, UInt64) = (0x80, 0)
        let padCount = bs - total % bs
        let ok: Bool = state.withLock { s in
            withUnsafeBytes(of: &padding) { pad in
                var tag: (UInt64, UInt64) = (0, 0)
                defer { withUnsafeMutableBytes(of: &tag) { OPENSSL_cleanse($0.baseAddress, $0.count) } }
                return withUnsafeMutableBytes(of: &tag) { tagBytes -> Bool in
                    let padBytes = UnsafeRawBufferPointer(rebasing: pad[0..<padCount])
                    let done: Bool
                    switch s.kind {
                    case .cmac(let cmac):
                        done =
                            cmac.restart() && cmac.update(a) && cmac.update(b) && cmac.update(c)
                            && cmac.update(padBytes)
                            && cmac.final(into: tagBytes.baseAddress!)
                    case .retail(let single, let full):
                        done = Self.retailMAC(
                            [a, b, c, padBytes], total: total + padCount, single: single, full: full,
                            scratch: s.scratch, into: tagBytes)
                    }
                    if done { output.copyMemory(from: UnsafeRawBufferPointer(rebasing: tagBytes[0..<output.count])) }
                    return done
                }
            }
        }
        if !ok { throw OpenSSL.error("\(function): EVP_CipherUpdate/EVP_MAC_update") }
    }

    /// ISO/IEC 9797-1 MAC algorithm 3 over the concatenated, already padded `parts` (`total` bytes, whole
    /// 8-byte blocks): every block but the last streams through single DES (CBC, zero IV); the last goes
    /// through two-key 3DES with the running MAC as IV.
    private static func retailMAC(
        _ parts: [UnsafeRawBufferPointer], total: Int, single: KeyedContext, full: KeyedContext,
        scratch: UnsafeMutableRawBufferPointer, into tag: UnsafeMutableRawBufferPointer
    ) -> Bool {
        let bs = 8
        let head = total - bs
        var last: UInt64 = 0
        return withUnsafeMutableBytes(of: &last) { lastBytes -> Bool in
            // tag[0..<8] holds the running MAC (zero before the first block)
            guard single.start(iv: nil) else { return false }
            var offset = 0
            for part in parts {
                guard let base = part.baseAddress, part.count > 0 else { continue }
                let streamed = max(0, min(part.count, head - offset))
                var p = 0
                while p < streamed {
                    let chunk = min(streamed - p, KeyedMAC.scratchSize)
                    guard let w = single.update(base + p, count: chunk, scratch.baseAddress!) else { return false }
                    if w > 0 { tag.baseAddress!.copyMemory(from: scratch.baseAddress! + (w - bs), byteCount: bs) }
                    p += chunk
                }
                if streamed < part.count {
                    // the rest of this part belongs to the last block
                    let into = offset + streamed - head
                    (lastBytes.baseAddress! + into).copyMemory(from: base + streamed, byteCount: part.count - streamed)
                }
                offset += part.count
            }
            return full.cbc(iv: tag.baseAddress!, lastBytes.baseAddress!, count: bs, tag.baseAddress!)
        }
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
