internal import CLibCrypto

public enum CipherAlgorithm: String, Sendable, Hashable, CaseIterable {
    case tripleDES = "3DES", aes128 = "AES-128", aes192 = "AES-192", aes256 = "AES-256"
    /// Key length in bytes (16 for 2-key 3DES).
    public var keyLength: Int {
        switch self {
        case .tripleDES, .aes128: return 16
        case .aes192: return 24
        case .aes256: return 32
        }
    }
    /// 8 for 3DES, 16 for AES.
    public var blockSize: Int { self == .tripleDES ? 8 : 16 }
}

/// ISO/IEC 9797-1 padding method 2 (0x80 then zeros to the block size; always adds padding).
public enum Padding {
    public static func pad(_ data: [UInt8], blockSize: Int) -> [UInt8] {
        var out = data
        out.reserveCapacity(data.count + blockSize)
        out.append(0x80)
        while out.count % blockSize != 0 { out.append(0) }
        return out
    }

    /// Removes method-2 padding; the input must be a non-empty multiple of the block size and end in
    /// `80 00…` with at most one block of padding.
    public static func unpad(_ data: [UInt8], blockSize: Int) throws(CryptoError) -> [UInt8] {
        guard !data.isEmpty, data.count % blockSize == 0 else {
            throw CryptoError(
                .badPadding, function: "Padding.unpad", "length \(data.count) is not a multiple of \(blockSize)")
        }
        var i = data.count - 1
        while i >= 0 && data[i] == 0 && data.count - i <= blockSize { i -= 1 }
        guard i >= 0, data[i] == 0x80, data.count - i <= blockSize else {
            throw CryptoError(.badPadding, function: "Padding.unpad", "no ISO/IEC 9797-1 method 2 padding")
        }
        return Array(data[..<i])
    }
}

/// Explicitly fetched cipher implementations, fetched once (an implicit fetch through
/// `FetchedCipher.aes128CBC.pointer` and friends repeats the provider lookup on every initialisation).
final class FetchedCipher: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ name: String) {
        guard let p = EVP_CIPHER_fetch(nil, name, nil) else {
            preconditionFailure("EVP_CIPHER_fetch(\(name)) failed: \(OpenSSL.drainErrors())")
        }
        pointer = p
    }
    deinit { EVP_CIPHER_free(pointer) }

    static let desEDECBC = FetchedCipher("DES-EDE-CBC")
    static let desEDE3CBC = FetchedCipher("DES-EDE3-CBC")
    static let aes128CBC = FetchedCipher("AES-128-CBC")
    static let aes192CBC = FetchedCipher("AES-192-CBC")
    static let aes256CBC = FetchedCipher("AES-256-CBC")
    static let aes128ECB = FetchedCipher("AES-128-ECB")
    static let aes192ECB = FetchedCipher("AES-192-ECB")
    static let aes256ECB = FetchedCipher("AES-256-ECB")
}

/// An owned EVP_CIPHER_CTX (docs/architecture.md §3.2).
private final class CipherContext {
    let pointer: OpaquePointer
    init() throws(CryptoError) { pointer = try OpenSSL.check(EVP_CIPHER_CTX_new(), "EVP_CIPHER_CTX_new") }
    deinit { EVP_CIPHER_CTX_free(pointer) }
}

/// Runs one libcrypto block cipher without padding over whole blocks.
enum EVPCipher {
    static func run(
        _ cipher: OpaquePointer, key: UnsafeRawBufferPointer, iv: [UInt8]?, encrypt: Bool,
        _ data: [UInt8], blockSize: Int, function: String
    ) throws(CryptoError) -> [UInt8] {
        guard data.count % blockSize == 0 else {
            throw CryptoError(
                .invalidInput, function: function, "data length \(data.count) is not a multiple of \(blockSize)")
        }
        if let iv, iv.count != blockSize {
            throw CryptoError(.invalidInput, function: function, "IV length \(iv.count), expected \(blockSize)")
        }
        if data.isEmpty { return [] }
        let ctx = try CipherContext()
        let keyBase = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let initRC: Int32
        if let iv {
            initRC = iv.withUnsafeBufferPointer {
                EVP_CipherInit_ex(ctx.pointer, cipher, nil, keyBase, $0.baseAddress, encrypt ? 1 : 0)
            }
        } else {
            initRC = EVP_CipherInit_ex(ctx.pointer, cipher, nil, keyBase, nil, encrypt ? 1 : 0)
        }
        try OpenSSL.check(initRC, "EVP_CipherInit_ex")
        try OpenSSL.check(EVP_CIPHER_CTX_set_padding(ctx.pointer, 0), "EVP_CIPHER_CTX_set_padding")
        var out = [UInt8](repeating: 0, count: data.count + blockSize)
        var written: Int32 = 0
        var finalWritten: Int32 = 0
        let (updateRC, finalRC): (Int32, Int32) = out.withUnsafeMutableBufferPointer { o in
            let u = data.withUnsafeBufferPointer { d in
                EVP_CipherUpdate(ctx.pointer, o.baseAddress, &written, d.baseAddress, Int32(d.count))
            }
            guard u == 1 else { return (u, 0) }
            let f = EVP_CipherFinal_ex(ctx.pointer, o.baseAddress! + Int(written), &finalWritten)
            return (u, f)
        }
        try OpenSSL.check(updateRC, "EVP_CipherUpdate")
        try OpenSSL.check(finalRC, "EVP_CipherFinal_ex")
        out.removeSubrange(Int(written + finalWritten)...)
        return out
    }
}

/// 2-key (16-byte key) or 3-key (24-byte key) Triple DES, EDE, no padding.
public enum TripleDES {
    static func cbcCipher(keyLength: Int) throws(CryptoError) -> OpaquePointer {
        switch keyLength {
        case 16: return FetchedCipher.desEDECBC.pointer
        case 24: return FetchedCipher.desEDE3CBC.pointer
        default: throw CryptoError(.invalidKey, function: "TripleDES", "key length \(keyLength), expected 16 or 24")
        }
    }

    public static func encryptCBC(key: SecretBytes, iv: [UInt8] = [UInt8](repeating: 0, count: 8), _ data: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        try cbc(key: key, iv: iv, data, encrypt: true, function: "TripleDES.encryptCBC")
    }

    public static func decryptCBC(key: SecretBytes, iv: [UInt8] = [UInt8](repeating: 0, count: 8), _ data: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        try cbc(key: key, iv: iv, data, encrypt: false, function: "TripleDES.decryptCBC")
    }

    private static func cbc(key: SecretBytes, iv: [UInt8], _ data: [UInt8], encrypt: Bool, function: String)
        throws(CryptoError) -> [UInt8]
    {
        let cipher = try cbcCipher(keyLength: key.count)
        return try key.withBytes { (k) throws(CryptoError) in
            try EVPCipher.run(cipher, key: k, iv: iv, encrypt: encrypt, data, blockSize: 8, function: function)
        }
    }

    /// Sets the DES odd-parity bit (the least significant bit) of every byte.
    public static func adjustParity(_ key: [UInt8]) -> [UInt8] {
        key.map { b in
            let high = b & 0xFE
            return (high.nonzeroBitCount % 2 == 0) ? high | 1 : high
        }
    }
}

/// AES-128/192/256 by key length, no padding (FIPS 197, SP 800-38A).
public enum AES {
    static func cipher(keyLength: Int, cbc: Bool) throws(CryptoError) -> OpaquePointer {
        switch (keyLength, cbc) {
        case (16, true): return FetchedCipher.aes128CBC.pointer
        case (24, true): return FetchedCipher.aes192CBC.pointer
        case (32, true): return FetchedCipher.aes256CBC.pointer
        case (16, false): return FetchedCipher.aes128ECB.pointer
        case (24, false): return FetchedCipher.aes192ECB.pointer
        case (32, false): return FetchedCipher.aes256ECB.pointer
        default: throw CryptoError(.invalidKey, function: "AES", "key length \(keyLength), expected 16, 24 or 32")
        }
    }

    private static func run(_ key: SecretBytes, iv: [UInt8]?, encrypt: Bool, _ data: [UInt8], _ function: String)
        throws(CryptoError) -> [UInt8]
    {
        let c = try cipher(keyLength: key.count, cbc: iv != nil)
        return try key.withBytes { (k) throws(CryptoError) in
            try EVPCipher.run(c, key: k, iv: iv, encrypt: encrypt, data, blockSize: 16, function: function)
        }
    }

    public static func encryptCBC(key: SecretBytes, iv: [UInt8], _ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try run(key, iv: iv, encrypt: true, data, "AES.encryptCBC")
    }
    public static func decryptCBC(key: SecretBytes, iv: [UInt8], _ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try run(key, iv: iv, encrypt: false, data, "AES.decryptCBC")
    }
    public static func encryptECB(key: SecretBytes, _ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try run(key, iv: nil, encrypt: true, data, "AES.encryptECB")
    }
    public static func decryptECB(key: SecretBytes, _ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try run(key, iv: nil, encrypt: false, data, "AES.decryptECB")
    }
}

/// ISO/IEC 9797-1 MAC algorithm 3 ("retail MAC", single DES with final 3DES) with a 16-byte key.
///
/// Single DES with key K is computed as two-key EDE with K||K (E_K ∘ D_K ∘ E_K = E_K), so only the
/// default provider's DES-EDE is needed: CBC-DES under K1 over all blocks but the last, then the
/// output transformation 3 (D_K2, E_K1) folded into one 2-key 3DES-CBC step over the last block.
public enum RetailMAC {
    /// `data` must already be padded (ISO 9797-1 method 2) to a multiple of 8 when `padded` is true;
    /// otherwise padding method 2 is applied here. Returns the 8-byte MAC.
    public static func mac(key: SecretBytes, _ data: [UInt8], padded: Bool = false) throws(CryptoError) -> [UInt8] {
        guard key.count == 16 else {
            throw CryptoError(.invalidKey, function: "RetailMAC.mac", "key length \(key.count), expected 16")
        }
        let message = padded ? data : Padding.pad(data, blockSize: 8)
        guard !message.isEmpty, message.count % 8 == 0 else {
            throw CryptoError(
                .invalidInput, function: "RetailMAC.mac",
                "padded data length \(message.count) is not a positive multiple of 8")
        }
        return try key.withBytes { (k) throws(CryptoError) in
            let k1 = Array(k[0..<8])
            let singleDESKey = SecretBytes(k1 + k1)
            var chain = [UInt8](repeating: 0, count: 8)
            if message.count > 8 {
                let head = Array(message[..<(message.count - 8)])
                let cbc = try TripleDES.encryptCBC(key: singleDESKey, iv: chain, head)
                chain = Array(cbc.suffix(8))
            }
            let last = Array(message.suffix(8))
            return try TripleDES.encryptCBC(key: key, iv: chain, last)
        }
    }
}

/// AES-CMAC (NIST SP 800-38B, RFC 4493), full 16-byte tag.
public enum AESCMAC {
    /// AES-CMAC (NIST SP 800-38B, RFC 4493) of `data` under a 16-, 24- or 32-byte key: OpenSSL's own CMAC.
    public static func mac(key: SecretBytes, _ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        let function = "AESCMAC.mac"
        let ctx = try key.withBytes { (k) throws(CryptoError) in try CMACContext(key: k, function: function) }
        var tag = [UInt8](repeating: 0, count: 16)
        let ok =
            data.withUnsafeBytes { ctx.update($0) } && tag.withUnsafeMutableBytes { ctx.final(into: $0.baseAddress!) }
        if !ok { throw OpenSSL.error("\(function): EVP_MAC_update/EVP_MAC_final") }
        return tag
    }
}

/// The ICAO 9303-11 §9.7.1 key derivation function: KDF(K, c) = H(K || c) truncated/split per cipher.
/// SHA-1 for 3DES (two keys with parity adjusted) and AES-128; SHA-256 for AES-192/256.
/// The counter c is a 32-bit big-endian integer.
public enum KDF {
    public static let encryptionCounter: UInt32 = 1
    public static let macCounter: UInt32 = 2
    public static let passwordCounter: UInt32 = 3

    public static func derive(_ sharedSecret: [UInt8], counter: UInt32, cipher: CipherAlgorithm) -> SecretBytes {
        var input = sharedSecret
        input += [UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)]
        defer { for i in input.indices { input[i] = 0 } }
        var digest: [UInt8]
        switch cipher {
        case .tripleDES, .aes128: digest = HashAlgorithm.sha1.hash(input)
        case .aes192, .aes256: digest = HashAlgorithm.sha256.hash(input)
        }
        defer { for i in digest.indices { digest[i] = 0 } }
        let keyBytes = Array(digest[..<cipher.keyLength])
        return SecretBytes(cipher == .tripleDES ? TripleDES.adjustParity(keyBytes) : keyBytes)
    }
}
