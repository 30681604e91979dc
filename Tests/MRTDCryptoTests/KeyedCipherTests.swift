import MRTDCrypto
import MRTDTestSupport
import Testing

/// The keyed-once cipher and MAC of secure-messaging sessions give exactly what the one-shot functions
/// (checked against published vectors in SymmetricTests) give, for every length, split and key.
@Suite struct KeyedCipherTests {
    static let random = SystemRandom()

    @Test(arguments: CipherAlgorithm.allCases)
    func cbcMatchesOneShot(_ cipher: CipherAlgorithm) throws {
        let key = SecretBytes(Self.random.randomBytes(count: cipher.keyLength))
        let keyed = try KeyedBlockCipher(cipher, key: key)
        let bs = cipher.blockSize
        for blocks in [1, 2, 3, 14, 70, 300] {
            let data = Self.random.randomBytes(count: blocks * bs)
            let iv = Self.random.randomBytes(count: bs)
            let zero = [UInt8](repeating: 0, count: bs)
            let expected: [UInt8]
            let expectedZeroIV: [UInt8]
            let expectedPlain: [UInt8]
            if cipher == .tripleDES {
                expected = try TripleDES.encryptCBC(key: key, iv: iv, data)
                expectedZeroIV = try TripleDES.encryptCBC(key: key, iv: zero, data)
                expectedPlain = try TripleDES.decryptCBC(key: key, iv: iv, data)
            } else {
                expected = try AES.encryptCBC(key: key, iv: iv, data)
                expectedZeroIV = try AES.encryptCBC(key: key, iv: zero, data)
                expectedPlain = try AES.decryptCBC(key: key, iv: iv, data)
            }
            // twice each, interleaved: every call starts from its own IV, not from the last chain
            for _ in 0..<2 {
                #expect(try keyed.encryptCBC(iv: iv, data) == expected)
                #expect(try keyed.decryptCBC(iv: iv, data) == expectedPlain)
                #expect(try keyed.encryptCBC(data) == expectedZeroIV)
                #expect(try keyed.decryptCBC(iv: iv, expected) == data)
            }
            // in place
            var buffer = data
            try iv.withUnsafeBytes { ivBytes in
                try buffer.withUnsafeMutableBytes { b in
                    try keyed.encryptCBC(iv: ivBytes, UnsafeRawBufferPointer(b), into: b)
                }
            }
            #expect(buffer == expected)
            try iv.withUnsafeBytes { ivBytes in
                try buffer.withUnsafeMutableBytes { b in
                    try keyed.decryptCBC(iv: ivBytes, UnsafeRawBufferPointer(b), into: b)
                }
            }
            #expect(buffer == data)
            if cipher != .tripleDES, blocks == 1 {
                #expect(try keyed.encryptCBC(data) == AES.encryptECB(key: key, data))
            }
        }
        #expect(throws: CryptoError.self) { try keyed.encryptCBC([UInt8](repeating: 0, count: bs + 1)) }
        #expect(throws: CryptoError.self) { try keyed.encryptCBC(iv: [0], [UInt8](repeating: 0, count: bs)) }
        #expect(try keyed.encryptCBC([]) == [])
    }

    @Test func keyLengthMustFit() {
        #expect(throws: CryptoError.self) {
            try KeyedBlockCipher(.aes256, key: SecretBytes([UInt8](repeating: 1, count: 20)))
        }
        #expect(throws: CryptoError.self) {
            try KeyedBlockCipher(.tripleDES, key: SecretBytes([UInt8](repeating: 1, count: 15)))
        }
        #expect(throws: CryptoError.self) {
            try KeyedMAC(.tripleDES, key: SecretBytes([UInt8](repeating: 1, count: 24)))
        }
        #expect(throws: CryptoError.self) { try KeyedMAC(.aes128, key: SecretBytes([UInt8](repeating: 1, count: 31))) }
    }

    /// pad(data) then AES-CMAC or the retail MAC, for lengths around every block boundary and beyond the
    /// internal streaming buffer, whole and split into three parts anywhere.
    @Test(arguments: CipherAlgorithm.allCases)
    func macMatchesOneShot(_ cipher: CipherAlgorithm) throws {
        let key = SecretBytes(Self.random.randomBytes(count: cipher.keyLength))
        let keyed = try KeyedMAC(cipher, key: key)
        #expect(keyed.macLength == cipher.blockSize)
        let lengths = Array(0...50) + [63, 64, 65, 1023, 1024, 1025, 1040, 3000, 65_000]
        for n in lengths {
            let data = Self.random.randomBytes(count: n)
            let expected =
                cipher == .tripleDES
                ? try RetailMAC.mac(key: key, data)
                : try AESCMAC.mac(key: key, Padding.pad(data, blockSize: 16))
            #expect(try keyed.macPadded(data) == expected, "length \(n)")
            let cut1 = n == 0 ? 0 : Int.random(in: 0...n)
            let cut2 = n == 0 ? 0 : Int.random(in: cut1...n)
            var split = [UInt8](repeating: 0, count: 8)
            data.withUnsafeBytes { d in
                split.withUnsafeMutableBytes { out in
                    #expect(throws: Never.self) {
                        try keyed.macPadded(
                            UnsafeRawBufferPointer(rebasing: d[0..<cut1]),
                            UnsafeRawBufferPointer(rebasing: d[cut1..<cut2]),
                            UnsafeRawBufferPointer(rebasing: d[cut2...]), into: out)
                    }
                }
            }
            #expect(split == Array(expected.prefix(8)), "length \(n) cut at \(cut1), \(cut2)")
        }
        // a changed bit changes the MAC
        let data = Self.random.randomBytes(count: 40)
        #expect(try keyed.macPadded(flipBit(data, at: 39)) != keyed.macPadded(data))
    }

    /// Two objects keyed differently and used in turn keep their own keys.
    @Test func interleavedKeysStayApart() throws {
        let k1 = SecretBytes(Self.random.randomBytes(count: 32))
        let k2 = SecretBytes(Self.random.randomBytes(count: 32))
        let m1 = try KeyedMAC(.aes256, key: k1)
        let m2 = try KeyedMAC(.aes256, key: k2)
        let c1 = try KeyedBlockCipher(.aes256, key: k1)
        let c2 = try KeyedBlockCipher(.aes256, key: k2)
        let data = Self.random.randomBytes(count: 48)
        for _ in 0..<3 {
            #expect(try m1.macPadded(data) == AESCMAC.mac(key: k1, Padding.pad(data, blockSize: 16)))
            #expect(try m2.macPadded(data) == AESCMAC.mac(key: k2, Padding.pad(data, blockSize: 16)))
            #expect(try c1.encryptCBC(data) == AES.encryptCBC(key: k1, iv: [UInt8](repeating: 0, count: 16), data))
            #expect(try c2.encryptCBC(data) == AES.encryptCBC(key: k2, iv: [UInt8](repeating: 0, count: 16), data))
        }
        #expect(!"\(m1)".contains("0x") && "\(c1)".contains("redacted"))
    }

    /// Concurrent use of one object from several tasks gives the same results (the contexts are locked).
    @Test func concurrentUse() async throws {
        let key = SecretBytes(Self.random.randomBytes(count: 16))
        let mac = try KeyedMAC(.aes128, key: key)
        let cipher = try KeyedBlockCipher(.aes128, key: key)
        let inputs = (0..<16).map { _ in Self.random.randomBytes(count: 16 * Int.random(in: 1...40)) }
        let expected = try inputs.map {
            try (
                AESCMAC.mac(key: key, Padding.pad($0, blockSize: 16)),
                AES.encryptCBC(key: key, iv: [UInt8](repeating: 0, count: 16), $0)
            )
        }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for (i, input) in inputs.enumerated() {
                group.addTask {
                    var ok = true
                    for _ in 0..<50 {
                        ok =
                            try ok && mac.macPadded(input) == expected[i].0 && cipher.encryptCBC(input) == expected[i].1
                    }
                    return ok
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }
}
