import MRTDCrypto

/// The cost of the OpenSSL primitives a read needs, measured in the same run through MRTDCrypto's public
/// API (the thinnest wrappers over libcrypto): the CPU floor beside each row of the benchmark.
struct PrimitiveCosts: Sendable {
    /// A cost linear in the input size: `fixed + perByte * n` nanoseconds.
    struct Linear: Sendable {
        var fixed: Double
        var perByte: Double
        func cost(_ n: Int) -> Double { fixed + perByte * Double(n) }
    }

    /// Variable-base and fixed-base EC scalar multiplication, per curve.
    var ecMultiply: [NamedCurve: Double] = [:]
    var ecMultiplyGenerator: [NamedCurve: Double] = [:]
    /// For information (not in any floor): a multiplication on the same curve rebuilt with another generator
    /// (`ECCurve.withGenerator`, explicit parameters), as PACE-GM's mapped generator G' is handled.
    var ecMultiplyExplicitCurve: [NamedCurve: Double] = [:]
    /// One modular exponentiation with a 160-bit exponent in the 1024-bit MODP group (RFC 5114 §2.1).
    var dhModExp1024: Double = 0
    /// CBC encryption (one EVP call) and the secure-messaging MAC, per cipher.
    var cbc: [CipherAlgorithm: Linear] = [:]
    var mac: [CipherAlgorithm: Linear] = [:]
    /// One AES block in ECB (the SM IV E(KSenc, SSC)).
    var aesBlock: [CipherAlgorithm: Double] = [:]
    var sha256: Linear = Linear(fixed: 0, perByte: 0)
    var sha1: Linear = Linear(fixed: 0, perByte: 0)
    /// ECDSA verification (SHA-256) on P-256 (document signer, CSCA) and brainpoolP256r1 (Active Authentication, plain r||s).
    var ecdsaVerifyP256: Double = 0
    var ecdsaVerifyBrainpool: Double = 0
    /// RSA-1024 public operation (Active Authentication ISO/IEC 9796-2 message recovery).
    var rsa1024Public: Double = 0

    /// Field by field, the median of several measurements (taken between rounds of reads).
    static func median(_ all: [PrimitiveCosts]) -> PrimitiveCosts {
        guard let first = all.first else { return PrimitiveCosts() }
        func med(_ xs: [Double]) -> Double { Spread(xs).median }
        func lin(_ xs: [Linear]) -> Linear { Linear(fixed: med(xs.map(\.fixed)), perByte: med(xs.map(\.perByte))) }
        func dict<K>(_ path: KeyPath<PrimitiveCosts, [K: Double]>) -> [K: Double] {
            var out: [K: Double] = [:]
            for k in first[keyPath: path].keys { out[k] = med(all.compactMap { $0[keyPath: path][k] }) }
            return out
        }
        func linDict<K>(_ path: KeyPath<PrimitiveCosts, [K: Linear]>) -> [K: Linear] {
            var out: [K: Linear] = [:]
            for k in first[keyPath: path].keys { out[k] = lin(all.compactMap { $0[keyPath: path][k] }) }
            return out
        }
        var m = PrimitiveCosts()
        m.ecMultiply = dict(\.ecMultiply)
        m.ecMultiplyGenerator = dict(\.ecMultiplyGenerator)
        m.ecMultiplyExplicitCurve = dict(\.ecMultiplyExplicitCurve)
        m.dhModExp1024 = med(all.map(\.dhModExp1024))
        m.cbc = linDict(\.cbc)
        m.mac = linDict(\.mac)
        m.aesBlock = dict(\.aesBlock)
        m.sha256 = lin(all.map(\.sha256))
        m.sha1 = lin(all.map(\.sha1))
        m.ecdsaVerifyP256 = med(all.map(\.ecdsaVerifyP256))
        m.ecdsaVerifyBrainpool = med(all.map(\.ecdsaVerifyBrainpool))
        m.rsa1024Public = med(all.map(\.rsa1024Public))
        return m
    }

    /// Named values for the report (nanoseconds → microseconds).
    var table: [(String, Double)] {
        var t: [(String, Double)] = []
        for c in [NamedCurve.brainpoolP256r1, .secp256r1] {
            if let v = ecMultiply[c] { t.append(("ecMultiply.\(c.rawValue)", v / 1000)) }
            if let v = ecMultiplyGenerator[c] { t.append(("ecMultiplyGenerator.\(c.rawValue)", v / 1000)) }
            if let v = ecMultiplyExplicitCurve[c] {
                t.append(("ecMultiplyExplicitCurve.\(c.rawValue) (info)", v / 1000))
            }
        }
        t.append(("dhModExp1024x160", dhModExp1024 / 1000))
        for c in [CipherAlgorithm.tripleDES, .aes128, .aes256] {
            if let l = cbc[c] {
                t.append(("cbc.\(c.rawValue).fixed", l.fixed / 1000))
                t.append(("cbc.\(c.rawValue).perKB", l.perByte * 1024 / 1000))
            }
            if let l = mac[c] {
                t.append(("mac.\(c.rawValue).fixed", l.fixed / 1000))
                t.append(("mac.\(c.rawValue).perKB", l.perByte * 1024 / 1000))
            }
            if let v = aesBlock[c] { t.append(("ecbBlock.\(c.rawValue)", v / 1000)) }
        }
        t.append(("sha256.fixed", sha256.fixed / 1000))
        t.append(("sha256.perKB", sha256.perByte * 1024 / 1000))
        t.append(("sha1.fixed", sha1.fixed / 1000))
        t.append(("ecdsaVerify.secp256r1", ecdsaVerifyP256 / 1000))
        t.append(("ecdsaVerify.brainpoolP256r1", ecdsaVerifyBrainpool / 1000))
        t.append(("rsa1024.publicOperation", rsa1024Public / 1000))
        return t
    }

    /// Median CPU nanoseconds per call of `body` over `batches` batches of `perBatch` calls.
    static func time(batches: Int = 5, perBatch: Int, _ body: () throws -> Void) rethrows -> Double {
        var samples: [Double] = []
        try body()  // warm-up
        for _ in 0..<batches {
            let start = BenchClock.cpuNanoseconds()
            for _ in 0..<perBatch { try body() }
            samples.append(Double(BenchClock.cpuNanoseconds() &- start) / Double(perBatch))
        }
        return Spread(samples).median
    }

    static func linear(small: Int, large: Int, perBatch: Int, _ body: ([UInt8]) throws -> Void) rethrows -> Linear {
        let a = [UInt8](repeating: 0x5A, count: small)
        let b = [UInt8](repeating: 0xA5, count: large)
        let ta = try time(perBatch: perBatch) { try body(a) }
        let tb = try time(perBatch: max(1, perBatch / 8)) { try body(b) }
        let perByte = max(0, (tb - ta) / Double(large - small))
        return Linear(fixed: max(0, ta - perByte * Double(small)), perByte: perByte)
    }

    /// As `linear`, for a body that writes its result into a buffer of the input's size allocated once.
    static func linearInPlace(
        small: Int, large: Int, perBatch: Int,
        _ body: (UnsafeRawBufferPointer, UnsafeMutableRawBufferPointer) throws -> Void
    ) rethrows -> Linear {
        let a = [UInt8](repeating: 0x5A, count: small)
        let b = [UInt8](repeating: 0xA5, count: large)
        let out = UnsafeMutableRawBufferPointer.allocate(byteCount: large, alignment: 16)
        defer { out.deallocate() }
        func run(_ input: [UInt8]) throws {
            try input.withUnsafeBytes { i in try body(i, UnsafeMutableRawBufferPointer(rebasing: out[0..<input.count]))
            }
        }
        let ta = try time(perBatch: perBatch) { try run(a) }
        let tb = try time(perBatch: max(1, perBatch / 8)) { try run(b) }
        let perByte = max(0, (tb - ta) / Double(large - small))
        return Linear(fixed: max(0, ta - perByte * Double(small)), perByte: perByte)
    }

    /// Measures everything. `scale` (0 < scale ≤ 1) shortens the batches for --quick.
    static func measure(scale: Double = 1) throws -> PrimitiveCosts {
        func n(_ x: Int) -> Int { max(2, Int(Double(x) * scale)) }
        var p = PrimitiveCosts()
        let random = SystemRandom()
        for c in [NamedCurve.brainpoolP256r1, .secp256r1] {
            let curve = ECCurve(named: c)
            let (_, point) = try curve.generateKeyPair(random: random)
            let scalar = try curve.generateKeyPair(random: random).privateKey.bytes
            p.ecMultiply[c] = try time(perBatch: n(40)) { _ = try curve.multiply(point, by: scalar) }
            p.ecMultiplyGenerator[c] = try time(perBatch: n(40)) { _ = try curve.multiplyGenerator(by: scalar) }
            let mapped = try curve.withGenerator(point)
            p.ecMultiplyExplicitCurve[c] = try time(perBatch: n(40)) { _ = try mapped.multiplyGenerator(by: scalar) }
        }
        let group = DHGroup(.group1024_160)
        let base = BigNumber(group.g)
        let modulus = BigNumber(group.p)
        let exponent = BigNumber(random.randomBytes(count: 20))
        p.dhModExp1024 = time(perBatch: n(40)) { _ = BigNumber.modExp(base, exponent, modulus) }

        // Symmetric primitives on contexts keyed once, writing into buffers allocated once: the least a
        // caller of libcrypto can spend per call (a one-shot call that sets up a context costs ~0.3 µs more).
        for c in [CipherAlgorithm.tripleDES, .aes128, .aes256] {
            let cipher = try KeyedBlockCipher(c, key: SecretBytes(random.randomBytes(count: c.keyLength)))
            let cbc = try linearInPlace(small: 16, large: 4096, perBatch: n(400)) { input, output in
                try cipher.encryptCBC(iv: nil, input, into: output)
            }
            p.cbc[c] = cbc
            if c == .tripleDES {
                let mac = try KeyedMAC(c, key: SecretBytes(random.randomBytes(count: 16)))
                let tag = UnsafeMutableRawBufferPointer.allocate(byteCount: 8, alignment: 8)
                defer { tag.deallocate() }
                let empty = UnsafeRawBufferPointer(start: nil, count: 0)
                p.mac[c] = try linear(small: 16, large: 4096, perBatch: n(400)) { data in
                    try data.withUnsafeBytes { d in try mac.macPadded(d, empty, empty, into: tag) }
                }
            } else {
                // The floor of an AES-CMAC is the CBC-MAC over the (padded) data: one CBC pass.
                p.mac[c] = cbc
                let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 16)
                defer { block.deallocate() }
                block.initializeMemory(as: UInt8.self, repeating: 0)
                p.aesBlock[c] = try time(perBatch: n(400)) {
                    try cipher.encryptCBC(iv: nil, UnsafeRawBufferPointer(block), into: block)
                }
            }
        }
        p.sha256 = linear(small: 64, large: 65536, perBatch: n(400)) { _ = HashAlgorithm.sha256.hash($0) }
        p.sha1 = linear(small: 64, large: 4096, perBatch: n(400)) { _ = HashAlgorithm.sha1.hash($0) }

        let message = [UInt8](repeating: 0x42, count: 64)
        let p256 = try PrivateKey.generateEC(curve: ECCurve(named: .secp256r1))
        let sig = try p256.sign(message, algorithm: .ecdsa(.sha256))
        p.ecdsaVerifyP256 = try time(perBatch: n(40)) {
            _ = try p256.publicKey.verify(signature: sig, message: message, algorithm: .ecdsa(.sha256))
        }
        let bp = try PrivateKey.generateEC(curve: ECCurve(named: .brainpoolP256r1))
        let bpSig = try bp.sign(message, algorithm: .ecdsaPlain(.sha256))
        p.ecdsaVerifyBrainpool = try time(perBatch: n(40)) {
            _ = try bp.publicKey.verify(signature: bpSig, message: message, algorithm: .ecdsaPlain(.sha256))
        }
        let rsa = try PrivateKey.generateRSA(bits: 1024)
        let value = [0x00] + random.randomBytes(count: 127)
        p.rsa1024Public = try time(perBatch: n(200)) { _ = try rsa.publicKey.rsaPublicOperation(value) }
        return p
    }

    // MARK: Floors of protocol steps (nanoseconds)

    /// Secure-messaging work on the terminal side for the APDUs counted in `c`: two MACs per APDU over the
    /// protected command and response, the enciphered payloads, and (AES) the two IV blocks E(KSenc, SSC).
    func secureMessaging(_ c: ChipCounters, cipher: CipherAlgorithm) -> Double {
        guard c.smAPDUs > 0, let m = mac[cipher], let e = cbc[cipher] else { return 0 }
        let macs = 2 * Double(c.smAPDUs) * m.fixed + m.perByte * Double(c.smMACBytes)
        let enc = Double(c.smCipherCalls) * e.fixed + e.perByte * Double(c.smCipherBytes)
        let ivs = 2 * Double(c.smAPDUs) * (aesBlock[cipher] ?? 0)
        return macs + enc + ivs
    }

    func kdf(_ cipher: CipherAlgorithm) -> Double {
        cipher == .aes256 || cipher == .aes192 ? sha256.cost(40) : sha1.cost(40)
    }
}
