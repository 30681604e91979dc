/// An ASN.1 OBJECT IDENTIFIER (X.690 §8.19), held as its arcs.
public struct ASN1ObjectIdentifier: Hashable, Sendable, CustomStringConvertible, Comparable {
    public let arcs: [UInt64]

    public init(arcs: [UInt64]) { self.arcs = arcs }

    /// From dotted notation ("0.4.0.127.0.7.2.2.4.2.2"); nil when malformed.
    public init?(_ dotted: String) {
        var arcs: [UInt64] = []
        for part in dotted.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty, let v = UInt64(part) else { return nil }
            arcs.append(v)
        }
        guard arcs.count >= 2, arcs[0] <= 2, arcs[0] == 2 || arcs[1] < 40 else { return nil }
        self.arcs = arcs
    }

    /// From the contents octets of an OBJECT IDENTIFIER.
    public init(contents: ArraySlice<UInt8>, offset: Int = 0) throws(TLVError) {
        try Self.validate(contents: contents, offset: offset)
        var arcs: [UInt64] = []
        arcs.reserveCapacity(contents.count + 1)
        var v: UInt64 = 0
        for b in contents {
            v = v << 7 | UInt64(b & 0x7F)
            guard b & 0x80 == 0 else { continue }
            if arcs.isEmpty {
                // The first subidentifier packs the first two arcs (X.690 §8.19.4).
                if v < 40 {
                    arcs.append(0)
                    arcs.append(v)
                } else if v < 80 {
                    arcs.append(1)
                    arcs.append(v - 40)
                } else {
                    arcs.append(2)
                    arcs.append(v - 80)
                }
            } else {
                arcs.append(v)
            }
            v = 0
        }
        self.arcs = arcs
    }

    /// Checks contents octets (non-empty, minimal arcs of at most 64 bits, no arc cut short) without
    /// building the arcs; `init(contents:offset:)` runs it first.
    public static func validate(contents: ArraySlice<UInt8>, offset: Int = 0) throws(TLVError) {
        guard !contents.isEmpty else { throw TLVError(.invalidValue, offset: offset, "empty OBJECT IDENTIFIER") }
        var v: UInt64 = 0
        var started = false
        for b in contents {
            if !started && b == 0x80 {
                throw TLVError(.nonMinimalEncoding, offset: offset, "OBJECT IDENTIFIER arc with leading 0x80")
            }
            guard v >> 57 == 0 else { throw TLVError(.invalidValue, offset: offset, "OBJECT IDENTIFIER arc too large") }
            v = b & 0x80 == 0 ? 0 : v << 7 | UInt64(b & 0x7F)
            started = b & 0x80 != 0
        }
        guard !started else { throw TLVError(.truncated, offset: offset, "OBJECT IDENTIFIER ends inside an arc") }
    }

    /// Reads an OBJECT IDENTIFIER node (tag 06).
    public init(node: TLVNode) throws(TLVError) {
        try node.expect(0x06, "OBJECT IDENTIFIER")
        try self.init(contents: node.value, offset: node.offset)
    }

    public var description: String { arcs.map(String.init).joined(separator: ".") }
    public var dotted: String { description }

    /// Contents octets.
    public var encodedValue: [UInt8] {
        var out: [UInt8] = []
        func base128(_ x: UInt64) {
            var chunk: [UInt8] = [UInt8(x & 0x7F)]
            var y = x >> 7
            while y > 0 {
                chunk.insert(UInt8(y & 0x7F) | 0x80, at: 0)
                y >>= 7
            }
            out += chunk
        }
        base128(arcs[0] * 40 + arcs[1])
        for a in arcs.dropFirst(2) { base128(a) }
        return out
    }

    /// Full DER encoding (tag 06).
    public var derEncoded: [UInt8] { TLVWriter.encode(0x06, encodedValue) }

    /// Whether this OID starts with `prefix`'s arcs.
    public func hasPrefix(_ prefix: ASN1ObjectIdentifier) -> Bool {
        arcs.count >= prefix.arcs.count && Array(arcs.prefix(prefix.arcs.count)) == prefix.arcs
    }

    public static func < (a: ASN1ObjectIdentifier, b: ASN1ObjectIdentifier) -> Bool {
        a.arcs.lexicographicallyPrecedes(b.arcs)
    }
}

extension ASN1ObjectIdentifier: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        guard let oid = ASN1ObjectIdentifier(value) else { preconditionFailure("bad OID literal \(value)") }
        self = oid
    }
}
