/// Where one BER-TLV / DER data object lies in a buffer, as read by `TLVCursor` (no copies).
///
/// Indices are those of the buffer the cursor reads (for an `ArraySlice`, its own indices).
public struct TLVHeader: Sendable, Hashable {
    /// Identifier octets as a big-endian integer (as `TLVNode.tag`).
    public let tag: UInt32
    /// Index of the first identifier octet.
    public let start: Int
    /// Index of the first contents octet.
    public let valueStart: Int
    /// Index after the last contents octet (before the end-of-contents octets of an indefinite length).
    public let valueEnd: Int
    /// Index after the whole encoding (after the end-of-contents octets of an indefinite length).
    public let end: Int

    @usableFromInline
    init(tag: UInt32, start: Int, valueStart: Int, valueEnd: Int, end: Int) {
        self.tag = tag
        self.start = start
        self.valueStart = valueStart
        self.valueEnd = valueEnd
        self.end = end
    }

    @inlinable public var isConstructed: Bool { tag <= 0xFF ? tag & 0x20 != 0 : TLVTag.isConstructed(tag) }
    @inlinable public var isIndefiniteLength: Bool { valueEnd != end }
    @inlinable public var encodedRange: Range<Int> { start..<end }
    @inlinable public var valueRange: Range<Int> { valueStart..<valueEnd }
    @inlinable public var valueLength: Int { valueEnd - valueStart }
}

/// A forward reader over a sequence of BER-TLV / DER data objects that builds no tree and copies
/// nothing: `next()` reads one header and steps over its contents, `children(of:)` gives a cursor
/// over a constructed object's contents. For hot paths (a master list of several hundred
/// certificates) where `TLVParser`'s tree of `TLVNode`s costs an allocation per constructed object.
///
/// The same limits as `TLVParser` apply (declared lengths within the input, bounded depth, the
/// rules' DER strictness); contents that are never visited are not checked, so a caller that needs
/// a part well-formed reads it.
public struct TLVCursor: Sendable {
    /// The buffer (indices of `TLVHeader`s are its indices).
    public let bytes: ArraySlice<UInt8>
    /// Index of the next header to read.
    public var position: Int { cursorPosition }
    @usableFromInline var cursorPosition: Int
    /// End of the region this cursor reads.
    public let end: Int
    @usableFromInline let parser: TLVParser
    /// Index that error offsets are relative to.
    @usableFromInline let base: Int
    @usableFromInline let depth: Int

    /// A cursor over the whole of `bytes`.
    public init(_ bytes: ArraySlice<UInt8>, rules: TLVParser.Rules = .ber) {
        self.bytes = bytes
        self.cursorPosition = bytes.startIndex
        self.end = bytes.endIndex
        self.parser = TLVParser(rules: rules)
        self.base = bytes.startIndex
        self.depth = 0
    }

    public init(_ bytes: [UInt8], rules: TLVParser.Rules = .ber) {
        self.init(bytes[...], rules: rules)
    }

    @usableFromInline
    init(bytes: ArraySlice<UInt8>, range: Range<Int>, parser: TLVParser, base: Int, depth: Int) {
        self.bytes = bytes
        self.cursorPosition = range.lowerBound
        self.end = range.upperBound
        self.parser = parser
        self.base = base
        self.depth = depth
    }

    @inlinable
    public var isAtEnd: Bool { position >= end }

    /// Reads the next header and moves past its encoding; nil at the end of the region.
    @inlinable
    public mutating func next() throws(TLVError) -> TLVHeader? {
        guard cursorPosition < end else { return nil }
        let h = try header(at: cursorPosition, limit: end, depth: depth)
        cursorPosition = h.end
        return h
    }

    /// The next object, which must exist and carry `tag`.
    @inlinable
    public mutating func next(_ tag: UInt32, _ what: String) throws(TLVError) -> TLVHeader {
        guard let h = try next() else {
            throw TLVError(.truncated, offset: position - base, "missing \(what) (\(TLVTag.describe(tag)))")
        }
        guard h.tag == tag else {
            throw TLVError(
                .unexpectedTag, offset: h.start - base,
                "expected \(TLVTag.describe(tag)) (\(what)), found \(TLVTag.describe(h.tag))")
        }
        return h
    }

    /// The tag of the next object without moving; nil at the end of the region.
    public func peekTag() throws(TLVError) -> UInt32? {
        guard position < end else { return nil }
        return try parser.readTag(bytes, at: cursorPosition, limit: end, base: base).0
    }

    /// A cursor over the contents of a constructed object read by this cursor.
    @inlinable
    public func children(of h: TLVHeader) throws(TLVError) -> TLVCursor {
        guard h.isConstructed else {
            throw TLVError(
                .unexpectedTag, offset: h.start - base, "\(TLVTag.describe(h.tag)) is primitive, not constructed")
        }
        guard depth < parser.rules.maxDepth else {
            throw TLVError(
                .depthExceeded, offset: h.start - base,
                "nesting deeper than \(parser.rules.maxDepth) (TLVLimits.maxDepth)")
        }
        return TLVCursor(bytes: bytes, range: h.valueStart..<h.valueEnd, parser: parser, base: base, depth: depth + 1)
    }

    /// Contents octets of `h`.
    @inlinable
    public func value(_ h: TLVHeader) -> ArraySlice<UInt8> { bytes[h.valueStart..<h.valueEnd] }
    /// Tag, length and contents of `h`, exactly as read.
    @inlinable
    public func encoded(_ h: TLVHeader) -> ArraySlice<UInt8> { bytes[h.start..<h.end] }

    /// `h` as a `TLVNode` without children, for the value readers of `TLVNode` (`integerValue()`,
    /// `objectIdentifierValue()`, `stringValue()`, `timeValue()`, …) on primitive objects.
    @inlinable
    public func node(_ h: TLVHeader) -> TLVNode {
        TLVNode(
            tag: h.tag, offset: h.start - base, encoded: bytes[h.start..<h.end],
            value: bytes[h.valueStart..<h.valueEnd],
            children: [], isIndefiniteLength: h.isIndefiniteLength)
    }

    /// `h` parsed into a full `TLVNode` tree (for the rare constructed values, e.g. a BER constructed OCTET STRING).
    public func tree(_ h: TLVHeader) throws(TLVError) -> TLVNode {
        try parser.parseOne(bytes[h.start..<h.end])
    }

    /// Error offset of `h` relative to the start of the buffer.
    @inlinable
    public func offset(_ h: TLVHeader) -> Int { h.start - base }

    // MARK: - Internals

    @usableFromInline
    func header(at i: Int, limit: Int, depth: Int) throws(TLVError) -> TLVHeader {
        let (tag, afterTag) = try parser.readTag(bytes, at: i, limit: limit, base: base)
        let (declared, j) = try parser.readLength(
            bytes, at: afterTag, limit: limit, base: base, constructed: TLVTag.isConstructed(tag))
        let valueStart = j
        if let len = declared {
            guard len <= limit - valueStart else {
                throw TLVError(
                    .truncated, offset: afterTag - base,
                    "\(TLVTag.describe(tag)) declares \(len) bytes, \(limit - valueStart) remain")
            }
            return TLVHeader(
                tag: tag, start: i, valueStart: valueStart, valueEnd: valueStart + len, end: valueStart + len)
        }
        // Indefinite length: step over the children until end-of-contents (00 00).
        guard depth < parser.rules.maxDepth else {
            throw TLVError(
                .depthExceeded, offset: i - base, "nesting deeper than \(parser.rules.maxDepth) (TLVLimits.maxDepth)")
        }
        var k = valueStart
        while true {
            guard k + 1 < limit else {
                throw TLVError(.truncated, offset: k - base, "missing end-of-contents for \(TLVTag.describe(tag))")
            }
            if bytes[k] == 0 && bytes[k + 1] == 0 { break }
            k = try header(at: k, limit: limit, depth: depth + 1).end
        }
        return TLVHeader(tag: tag, start: i, valueStart: valueStart, valueEnd: k, end: k + 2)
    }
}
