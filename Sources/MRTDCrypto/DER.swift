/// A tiny DER/BER reader and DER writer for the key structures MRTDCrypto parses itself
/// (SubjectPublicKeyInfo, ECParameters, PKCS #8, ECDSA-Sig-Value). MRTDCrypto sits below ASN1TLV
/// in the layering, hence its own. Reading tolerates the BER oddities documents carry where harmless
/// (non-minimal length forms, non-minimal INTEGERs); indefinite lengths are rejected. Depth is
/// bounded by the callers (fixed structures).
struct DERNode {
    var tag: UInt8
    /// The whole encoding (header and value).
    var encoded: ArraySlice<UInt8>
    var value: ArraySlice<UInt8>

    var isConstructed: Bool { tag & 0x20 != 0 }

    /// Parses exactly one element from `bytes` (trailing bytes are an error unless `allowTrailing`).
    static func parse(_ bytes: ArraySlice<UInt8>, function: String, allowTrailing: Bool = false) throws(CryptoError)
        -> (DERNode, ArraySlice<UInt8>)
    {
        var i = bytes.startIndex
        func fail(_ reason: String) -> CryptoError {
            CryptoError(.invalidInput, function: function, "ASN.1: \(reason)")
        }
        guard i < bytes.endIndex else { throw fail("unexpected end of data") }
        let tag = bytes[i]
        i += 1
        guard tag & 0x1F != 0x1F else { throw fail("multi-byte tag not expected here") }
        guard i < bytes.endIndex else { throw fail("missing length") }
        var length = Int(bytes[i])
        i += 1
        if length == 0x80 { throw fail("indefinite length") }
        if length > 0x80 {
            let count = length & 0x7F
            guard count <= 4, i + count <= bytes.endIndex else { throw fail("bad long-form length") }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[i])
                i += 1
            }
        }
        guard length <= bytes.endIndex - i else { throw fail("length \(length) exceeds the data") }
        let node = DERNode(tag: tag, encoded: bytes[bytes.startIndex..<(i + length)], value: bytes[i..<(i + length)])
        let rest = bytes[(i + length)...]
        if !allowTrailing && !rest.isEmpty { throw fail("\(rest.count) trailing bytes") }
        return (node, rest)
    }

    static func parse(_ bytes: [UInt8], function: String) throws(CryptoError) -> DERNode {
        try parse(bytes[...], function: function).0
    }

    /// Children of a constructed node.
    func children(_ function: String) throws(CryptoError) -> [DERNode] {
        guard isConstructed else {
            throw CryptoError(.invalidInput, function: function, "ASN.1: tag \(tag) is not constructed")
        }
        var out: [DERNode] = []
        var rest = value
        while !rest.isEmpty {
            guard out.count < 64 else {
                throw CryptoError(.invalidInput, function: function, "ASN.1: too many elements")
            }
            let (node, r) = try DERNode.parse(rest, function: function, allowTrailing: true)
            out.append(node)
            rest = r
        }
        return out
    }

    func expect(_ tag: UInt8, _ function: String) throws(CryptoError) -> DERNode {
        guard self.tag == tag else {
            throw CryptoError(.invalidInput, function: function, "ASN.1: expected tag \(tag), found \(self.tag)")
        }
        return self
    }

    /// Unsigned magnitude of a non-negative INTEGER (leading zeros removed; negative rejected).
    func unsignedInteger(_ function: String) throws(CryptoError) -> [UInt8] {
        _ = try expect(0x02, function)
        guard let first = value.first else {
            throw CryptoError(.invalidInput, function: function, "ASN.1: empty INTEGER")
        }
        guard first & 0x80 == 0 else { throw CryptoError(.invalidInput, function: function, "ASN.1: negative INTEGER") }
        let trimmed = value.drop(while: { $0 == 0 })
        return trimmed.isEmpty ? [0] : Array(trimmed)
    }

    func objectIdentifier(_ function: String) throws(CryptoError) -> String {
        _ = try expect(0x06, function)
        guard let oid = OID.decode(Array(value)) else {
            throw CryptoError(.invalidInput, function: function, "ASN.1: bad OBJECT IDENTIFIER")
        }
        return oid
    }

    func octetString(_ function: String) throws(CryptoError) -> [UInt8] {
        Array(try expect(0x04, function).value)
    }

    /// BIT STRING content without the unused-bits byte (which must be 0).
    func bitString(_ function: String) throws(CryptoError) -> [UInt8] {
        _ = try expect(0x03, function)
        guard value.first == 0 else {
            throw CryptoError(.invalidInput, function: function, "ASN.1: BIT STRING with unused bits")
        }
        return Array(value.dropFirst())
    }
}

/// DER encoding helpers.
enum DER {
    static func tlv(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        let n = value.count
        if n < 0x80 {
            out.append(UInt8(n))
        } else {
            var lengthBytes: [UInt8] = []
            var v = n
            while v > 0 {
                lengthBytes.insert(UInt8(v & 0xFF), at: 0)
                v >>= 8
            }
            out.append(0x80 | UInt8(lengthBytes.count))
            out += lengthBytes
        }
        return out + value
    }
    static func sequence(_ parts: [[UInt8]]) -> [UInt8] { tlv(0x30, parts.flatMap { $0 }) }
    /// A non-negative INTEGER from an unsigned big-endian magnitude.
    static func integer(unsigned magnitude: [UInt8]) -> [UInt8] {
        var m = Array(magnitude.drop(while: { $0 == 0 }))
        if m.isEmpty { m = [0] }
        if m[0] & 0x80 != 0 { m.insert(0, at: 0) }
        return tlv(0x02, m)
    }
    static func integer(_ value: Int) -> [UInt8] {
        precondition(value >= 0)
        var b: [UInt8] = []
        var v = value
        repeat {
            b.insert(UInt8(v & 0xFF), at: 0)
            v >>= 8
        } while v > 0
        return integer(unsigned: b)
    }
    static func oid(_ dotted: String) -> [UInt8] { tlv(0x06, OID.encode(dotted)) }
    static func octetString(_ value: [UInt8]) -> [UInt8] { tlv(0x04, value) }
    static func bitString(_ value: [UInt8]) -> [UInt8] { tlv(0x03, [0] + value) }
    static let null: [UInt8] = [0x05, 0x00]
}

/// OBJECT IDENTIFIER content encoding (X.690 §8.19).
enum OID {
    static let rsaEncryption = "1.2.840.113549.1.1.1"
    static let rsassaPSS = "1.2.840.113549.1.1.10"
    static let ecPublicKey = "1.2.840.10045.2.1"
    static let primeField = "1.2.840.10045.1.1"

    static func encode(_ dotted: String) -> [UInt8] {
        let arcs = dotted.split(separator: ".").map { UInt64($0)! }
        precondition(arcs.count >= 2, "OID needs two arcs")
        var out: [UInt8] = []
        func base128(_ v: UInt64) {
            var chunk: [UInt8] = [UInt8(v & 0x7F)]
            var rest = v >> 7
            while rest > 0 {
                chunk.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            out += chunk
        }
        base128(arcs[0] * 40 + arcs[1])
        for arc in arcs.dropFirst(2) { base128(arc) }
        return out
    }

    static func decode(_ bytes: [UInt8]) -> String? {
        guard !bytes.isEmpty, bytes.last! & 0x80 == 0 else { return nil }
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        for b in bytes {
            guard value >> 57 == 0 else { return nil }
            value = value << 7 | UInt64(b & 0x7F)
            if b & 0x80 == 0 {
                arcs.append(value)
                value = 0
            }
        }
        let first = arcs[0]
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3 + 4)
        func append(_ v: UInt64) {
            if !out.isEmpty { out.append(UInt8(ascii: ".")) }
            var digits: [UInt8] = []
            var x = v
            repeat {
                digits.append(UInt8(ascii: "0") + UInt8(x % 10))
                x /= 10
            } while x > 0
            out.append(contentsOf: digits.reversed())
        }
        if first < 80 {
            append(first / 40)
            append(first % 40)
        } else {
            append(2)
            append(first - 80)
        }
        for a in arcs.dropFirst() { append(a) }
        return String(decoding: out, as: UTF8.self)
    }
}
