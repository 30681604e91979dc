/// Writes BER-TLV / DER encodings (definite, minimal lengths: the output is DER whenever the
/// caller's values are).
public enum TLVWriter {
    /// Length octets in the minimal definite form.
    public static func length(_ n: Int) -> [UInt8] {
        precondition(n >= 0)
        if n < 0x80 { return [UInt8(n)] }
        var octets: [UInt8] = []
        var v = n
        while v > 0 {
            octets.insert(UInt8(v & 0xFF), at: 0)
            v >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }

    /// Number of octets `length(n)` writes.
    public static func lengthCount(_ n: Int) -> Int {
        precondition(n >= 0)
        guard n >= 0x80 else { return 1 }
        return 1 + (Int.bitWidth - n.leadingZeroBitCount + 7) / 8
    }

    /// Writes a one-octet tag and the minimal definite length of `n` at `out[at...]` (for callers that build
    /// an encoding in place, where it travels); returns the index of the first value octet.
    public static func writeHeader(_ tag: UInt8, length n: Int, into out: UnsafeMutableRawBufferPointer, at: Int)
        -> Int
    {
        let count = lengthCount(n)
        out[at] = tag
        if count == 1 {
            out[at + 1] = UInt8(n)
            return at + 2
        }
        out[at + 1] = 0x80 | UInt8(count - 1)
        for k in 1..<count { out[at + 1 + k] = UInt8(truncatingIfNeeded: n >> (8 * (count - 1 - k))) }
        return at + 1 + count
    }

    /// Tag, length and value.
    public static func encode(_ tag: UInt32, _ value: [UInt8]) -> [UInt8] {
        var out = TLVTag.bytes(tag)
        out += length(value.count)
        out += value
        return out
    }

    /// Tag, length and the concatenation of already-encoded children.
    public static func encode(_ tag: UInt32, children: [[UInt8]]) -> [UInt8] {
        encode(tag, children.flatMap { $0 })
    }
}

/// Builders for the universal ASN.1 types (X.690 DER).
public enum DER {
    public static func sequence(_ children: [[UInt8]]) -> [UInt8] { TLVWriter.encode(0x30, children: children) }
    public static func sequence(_ children: [UInt8]...) -> [UInt8] { sequence(children) }

    /// SET OF with its elements sorted as DER requires (X.690 §11.6).
    public static func setOf(_ children: [[UInt8]]) -> [UInt8] {
        let sorted = children.sorted { a, b in
            for (x, y) in zip(a, b) where x != y { return x < y }
            return a.count < b.count
        }
        return TLVWriter.encode(0x31, children: sorted)
    }

    /// SET with elements in the given order.
    public static func set(_ children: [[UInt8]]) -> [UInt8] { TLVWriter.encode(0x31, children: children) }

    public static func boolean(_ v: Bool) -> [UInt8] { [0x01, 0x01, v ? 0xFF : 0x00] }
    public static func null() -> [UInt8] { [0x05, 0x00] }

    public static func integer(_ v: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var x = v
        repeat {
            bytes.insert(UInt8(truncatingIfNeeded: x), at: 0)
            x >>= 8
        } while !(x == 0 && bytes[0] & 0x80 == 0) && !(x == -1 && bytes[0] & 0x80 != 0)
        return TLVWriter.encode(0x02, bytes)
    }

    /// INTEGER from an unsigned big-endian magnitude (leading zeros stripped, a 00 added when needed).
    public static func integer(unsigned magnitude: [UInt8]) -> [UInt8] {
        var m = Array(magnitude.drop { $0 == 0 })
        if m.isEmpty { m = [0] }
        if m[0] & 0x80 != 0 { m.insert(0, at: 0) }
        return TLVWriter.encode(0x02, m)
    }

    public static func octetString(_ v: [UInt8]) -> [UInt8] { TLVWriter.encode(0x04, v) }
    /// BIT STRING with `unusedBits` unused bits in the last octet.
    public static func bitString(_ v: [UInt8], unusedBits: UInt8 = 0) -> [UInt8] {
        TLVWriter.encode(0x03, [unusedBits] + v)
    }
    public static func utf8String(_ s: String) -> [UInt8] { TLVWriter.encode(0x0C, Array(s.utf8)) }
    public static func printableString(_ s: String) -> [UInt8] { TLVWriter.encode(0x13, Array(s.utf8)) }
    public static func ia5String(_ s: String) -> [UInt8] { TLVWriter.encode(0x16, Array(s.utf8)) }

    public static func objectIdentifier(_ oid: ObjectIdentifier) -> [UInt8] { TLVWriter.encode(0x06, oid.encodedValue) }
    public static func objectIdentifier(_ dotted: String) -> [UInt8] {
        guard let oid = ObjectIdentifier(dotted) else { preconditionFailure("bad OID literal \(dotted)") }
        return objectIdentifier(oid)
    }

    /// Context-specific explicit tag `[n]` around an encoding.
    public static func explicit(_ n: UInt8, _ inner: [UInt8]) -> [UInt8] {
        TLVWriter.encode(TLVTag.context(n, constructed: true), inner)
    }

    /// Context-specific implicit primitive tag `[n]` with raw contents.
    public static func implicit(_ n: UInt8, _ contents: [UInt8], constructed: Bool = false) -> [UInt8] {
        TLVWriter.encode(TLVTag.context(n, constructed: constructed), contents)
    }

    public static func utcTime(_ t: ASN1Time) -> [UInt8] { TLVWriter.encode(0x17, Array(t.utcTimeString.utf8)) }
    public static func generalizedTime(_ t: ASN1Time) -> [UInt8] {
        TLVWriter.encode(0x18, Array(t.generalizedTimeString.utf8))
    }
    /// RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050.
    public static func time(_ t: ASN1Time) -> [UInt8] { t.year < 2050 ? utcTime(t) : generalizedTime(t) }
}
