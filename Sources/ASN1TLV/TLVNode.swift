/// A BER-TLV / DER data object as read from a buffer (ISO/IEC 7816-4 §5.2, ITU-T X.690 §8).
///
/// A node keeps the exact bytes it was read from (`encoded`: tag, length and value, including the
/// end-of-contents octets of an indefinite-length encoding), so that hashes and signatures are
/// computed over the bytes as read, never over a re-encoding.
///
/// Tags are held as the big-endian integer of their identifier octets, the way ICAO 9303 writes
/// them: `0x30` (SEQUENCE), `0x5F1F` (MRZ), `0x7F61` (biometric information group template).
public struct TLVNode: Sendable, Hashable {
    /// Identifier octets as a big-endian integer (at most 4 octets).
    public let tag: UInt32
    /// Byte offset of the first identifier octet in the buffer handed to the parser.
    public let offset: Int
    /// Tag, length and value (and end-of-contents for indefinite length), exactly as read.
    public let encoded: ArraySlice<UInt8>
    /// The value octets (contents), exactly as read. For an indefinite-length encoding these are
    /// the contents without the end-of-contents octets.
    public let value: ArraySlice<UInt8>
    /// Child nodes of a constructed encoding, parsed at construction time (bounded depth).
    public let children: [TLVNode]
    /// Whether the length was encoded in the indefinite form (BER only).
    public let isIndefiniteLength: Bool

    public init(
        tag: UInt32, offset: Int, encoded: ArraySlice<UInt8>, value: ArraySlice<UInt8>,
        children: [TLVNode], isIndefiniteLength: Bool
    ) {
        self.tag = tag
        self.offset = offset
        self.encoded = encoded
        self.value = value
        self.children = children
        self.isIndefiniteLength = isIndefiniteLength
    }

    /// Bit 6 of the first identifier octet.
    public var isConstructed: Bool { TLVTag.isConstructed(tag) }
    /// The class of the tag (bits 8–7 of the first identifier octet).
    public var tagClass: TLVTag.TagClass { TLVTag.tagClass(of: tag) }

    /// Value bytes copied into a fresh array (indices start at 0).
    public var valueBytes: [UInt8] { Array(value) }
    /// Encoded bytes copied into a fresh array (indices start at 0).
    public var encodedBytes: [UInt8] { Array(encoded) }

    /// The first child with the given tag.
    public func child(_ tag: UInt32) -> TLVNode? { children.first { $0.tag == tag } }

    /// The first child with the given tag, or an `unexpectedTag` error naming it.
    public func requireChild(_ tag: UInt32) throws(TLVError) -> TLVNode {
        guard let c = child(tag) else {
            throw TLVError(
                .unexpectedTag, offset: offset,
                "missing tag \(TLVTag.describe(tag)) inside \(TLVTag.describe(self.tag))")
        }
        return c
    }

    /// Child at a position, or an error naming what was expected.
    public func child(at index: Int, _ what: String = "element") throws(TLVError) -> TLVNode {
        guard index < children.count else {
            throw TLVError(
                .truncated, offset: offset,
                "\(TLVTag.describe(tag)) has \(children.count) elements, \(what) #\(index) missing")
        }
        return children[index]
    }

    /// Throws unless the tag is the expected one.
    @discardableResult
    public func expect(_ tag: UInt32, _ what: String = "") throws(TLVError) -> TLVNode {
        guard self.tag == tag else {
            throw TLVError(
                .unexpectedTag, offset: offset,
                "expected \(TLVTag.describe(tag))\(what.isEmpty ? "" : " (\(what))"), found \(TLVTag.describe(self.tag))"
            )
        }
        return self
    }
}

/// Helpers for BER tags.
public enum TLVTag {
    public enum TagClass: UInt8, Sendable {
        case universal = 0, application = 1, contextSpecific = 2, `private` = 3
    }

    /// The first identifier octet of a tag held as a big-endian integer.
    public static func firstOctet(_ tag: UInt32) -> UInt8 {
        var t = tag
        while t > 0xFF { t >>= 8 }
        return UInt8(t)
    }

    public static func isConstructed(_ tag: UInt32) -> Bool { firstOctet(tag) & 0x20 != 0 }

    public static func tagClass(of tag: UInt32) -> TagClass { TagClass(rawValue: firstOctet(tag) >> 6)! }

    /// The identifier octets of a tag.
    public static func bytes(_ tag: UInt32) -> [UInt8] {
        if tag <= 0xFF { return [UInt8(tag)] }
        if tag <= 0xFFFF { return [UInt8(tag >> 8), UInt8(tag & 0xFF)] }
        if tag <= 0xFF_FFFF { return [UInt8(tag >> 16), UInt8((tag >> 8) & 0xFF), UInt8(tag & 0xFF)] }
        return [UInt8(tag >> 24), UInt8((tag >> 16) & 0xFF), UInt8((tag >> 8) & 0xFF), UInt8(tag & 0xFF)]
    }

    /// `'5F1F'` style rendering for messages.
    public static func describe(_ tag: UInt32) -> String { "'\(Hex.encode(bytes(tag)))'" }

    /// Context-specific tag number `n` (`[n]`), primitive or constructed.
    public static func context(_ n: UInt8, constructed: Bool) -> UInt32 {
        precondition(n < 31)
        return UInt32(0x80 | (constructed ? 0x20 : 0) | n)
    }
}
