/// Reads BER-TLV (ISO/IEC 7816-4 §5.2, X.690 §8) and DER (X.690 §10) into `TLVNode`s.
///
/// Bounded: nesting depth, declared lengths and the number of nodes built are limited (`TLVLimits`), a
/// declared length larger than the remaining input is an error (never an allocation), and `parse` must
/// consume its whole input. A hostile input therefore costs at most `maxElements` nodes, whatever its size.
public struct TLVParser: Sendable {
    public struct Rules: Sendable, Hashable {
        /// DER: definite minimal lengths only, no indefinite length.
        public var distinguished: Bool
        /// Allow BER indefinite length on constructed encodings (ignored when `distinguished`).
        public var allowIndefiniteLength: Bool
        /// Maximum nesting depth of constructed encodings.
        public var maxDepth: Int
        /// Largest accepted declared length of one node.
        public var maxLength: Int
        /// Parse the contents of constructed encodings into children.
        public var parseChildren: Bool
        /// Largest number of nodes one parse builds (the top node and all its descendants).
        public var maxElements: Int

        public init(
            distinguished: Bool, allowIndefiniteLength: Bool, maxDepth: Int = TLVLimits.maxDepth,
            maxLength: Int = TLVLimits.maxLength, parseChildren: Bool = true,
            maxElements: Int = TLVLimits.maxElements
        ) {
            (self.distinguished, self.allowIndefiniteLength) = (distinguished, allowIndefiniteLength)
            (self.maxDepth, self.maxLength, self.maxElements) = (maxDepth, maxLength, maxElements)
            self.parseChildren = parseChildren
        }

        /// Lenient BER as found in real documents (indefinite length allowed, non-minimal lengths tolerated).
        public static let ber = Rules(distinguished: false, allowIndefiniteLength: true)
        /// Strict DER.
        public static let der = Rules(distinguished: true, allowIndefiniteLength: false)
    }

    public var rules: Rules

    public init(rules: Rules = .ber) { self.rules = rules }

    /// Parses exactly one node that must span the whole input.
    public static func parse(_ bytes: [UInt8], rules: Rules = .ber) throws(TLVError) -> TLVNode {
        try TLVParser(rules: rules).parseOne(bytes[...])
    }

    /// Parses exactly one node that must span the whole input.
    public static func parse(_ bytes: ArraySlice<UInt8>, rules: Rules = .ber) throws(TLVError) -> TLVNode {
        try TLVParser(rules: rules).parseOne(bytes)
    }

    /// Parses a concatenation of nodes spanning the whole input.
    public static func parseAll(_ bytes: ArraySlice<UInt8>, rules: Rules = .ber) throws(TLVError) -> [TLVNode] {
        let p = TLVParser(rules: rules)
        var index = bytes.startIndex
        var nodes: [TLVNode] = []
        var budget = rules.maxElements
        while index < bytes.endIndex {
            let (node, next) = try p.readNode(bytes, at: index, base: bytes.startIndex, depth: 0, budget: &budget)
            nodes.append(node)
            index = next
        }
        return nodes
    }

    public static func parseAll(_ bytes: [UInt8], rules: Rules = .ber) throws(TLVError) -> [TLVNode] {
        try parseAll(bytes[...], rules: rules)
    }

    /// Reads the first node of the input and returns it with the number of bytes it occupies;
    /// bytes after it are allowed (used for files read in chunks and padded values).
    public static func parsePrefix(_ bytes: ArraySlice<UInt8>, rules: Rules = .ber) throws(TLVError) -> (TLVNode, Int) {
        let p = TLVParser(rules: rules)
        var budget = rules.maxElements
        let (node, next) = try p.readNode(
            bytes, at: bytes.startIndex, base: bytes.startIndex, depth: 0, budget: &budget)
        return (node, next - bytes.startIndex)
    }

    /// Reads only the tag and length of the first node: returns the tag, the header size and the
    /// declared value length (nil for indefinite length). Works on an incomplete buffer, which is
    /// how a file's total length is learned from its first chunk.
    public static func peekHeader(_ bytes: ArraySlice<UInt8>) throws(TLVError) -> (
        tag: UInt32, headerLength: Int, valueLength: Int?
    ) {
        let p = TLVParser(rules: .ber)
        let start = bytes.startIndex
        let (tag, afterTag) = try p.readTag(bytes, at: start, base: start)
        let (len, afterLen) = try p.readLength(bytes, at: afterTag, base: start, constructed: TLVTag.isConstructed(tag))
        return (tag, afterLen - start, len)
    }

    public func parseOne(_ bytes: ArraySlice<UInt8>) throws(TLVError) -> TLVNode {
        guard !bytes.isEmpty else { throw TLVError(.truncated, offset: 0, "empty input") }
        var budget = rules.maxElements
        let (node, next) = try readNode(bytes, at: bytes.startIndex, base: bytes.startIndex, depth: 0, budget: &budget)
        if next != bytes.endIndex {
            throw TLVError(
                .trailingData, offset: next - bytes.startIndex,
                "\(bytes.endIndex - next) bytes after the end of \(TLVTag.describe(node.tag))")
        }
        return node
    }

    // MARK: - Internals

    /// Reads the identifier octets at `i`, not beyond `limit` (`TLVCursor` passes its region's end
    /// instead of slicing the buffer for every object).
    @usableFromInline
    func readTag(_ b: ArraySlice<UInt8>, at i: Int, limit: Int? = nil, base: Int) throws(TLVError) -> (UInt32, Int) {
        let limit = limit ?? b.endIndex
        guard i < limit else { throw TLVError(.truncated, offset: i - base, "missing tag") }
        let first = b[i]
        var tag = UInt32(first)
        var j = i + 1
        if first & 0x1F == 0x1F {
            var count = 0
            while true {
                guard j < limit else { throw TLVError(.truncated, offset: j - base, "truncated multi-byte tag") }
                let o = b[j]
                if count == 0 && o == 0x80 && rules.distinguished {
                    throw TLVError(.invalidTag, offset: j - base, "non-minimal tag number")
                }
                tag = tag << 8 | UInt32(o)
                j += 1
                count += 1
                if o & 0x80 == 0 { break }
                if count >= 3 { throw TLVError(.invalidTag, offset: i - base, "tag longer than 4 octets") }
            }
        }
        return (tag, j)
    }

    /// Returns the declared length (nil = indefinite) and the index after the length octets.
    @usableFromInline
    func readLength(_ b: ArraySlice<UInt8>, at i: Int, limit: Int? = nil, base: Int, constructed: Bool) throws(TLVError)
        -> (Int?, Int)
    {
        let limit = limit ?? b.endIndex
        guard i < limit else { throw TLVError(.truncated, offset: i - base, "missing length") }
        let first = b[i]
        if first < 0x80 { return (Int(first), i + 1) }
        if first == 0x80 {
            guard !rules.distinguished, rules.allowIndefiniteLength else {
                throw TLVError(.indefiniteLengthNotAllowed, offset: i - base, "indefinite length not allowed here")
            }
            guard constructed else {
                throw TLVError(.invalidLength, offset: i - base, "indefinite length on a primitive encoding")
            }
            return (nil, i + 1)
        }
        let n = Int(first & 0x7F)
        guard n <= 4 else { throw TLVError(.lengthTooLarge, offset: i - base, "length of \(n) octets") }
        guard i + n < limit else { throw TLVError(.truncated, offset: i - base, "truncated length") }
        var len = 0
        for k in 1...n { len = len << 8 | Int(b[i + k]) }
        if rules.distinguished {
            if len < 0x80 || b[i + 1] == 0 {
                throw TLVError(.nonMinimalEncoding, offset: i - base, "length not minimally encoded")
            }
        }
        guard len <= rules.maxLength else {
            throw TLVError(
                .lengthTooLarge, offset: i - base,
                "declared length \(len) exceeds the limit \(rules.maxLength) (TLVLimits.maxLength)")
        }
        return (len, i + 1 + n)
    }

    /// Reads one node and its descendants; `budget` is how many more nodes this parse may build (checked
    /// before each one is read, so a file of millions of tiny elements stops after `maxElements`).
    func readNode(_ b: ArraySlice<UInt8>, at i: Int, base: Int, depth: Int, budget: inout Int) throws(TLVError) -> (
        TLVNode, Int
    ) {
        guard depth <= rules.maxDepth else {
            throw TLVError(
                .depthExceeded, offset: i - base, "nesting deeper than \(rules.maxDepth) (TLVLimits.maxDepth)")
        }
        guard budget > 0 else {
            throw TLVError(
                .tooManyElements, offset: i - base,
                "more than \(rules.maxElements) data objects (TLVLimits.maxElements)")
        }
        budget -= 1
        let (tag, afterTag) = try readTag(b, at: i, base: base)
        let constructed = TLVTag.isConstructed(tag)
        let (declared, valueStart) = try readLength(b, at: afterTag, base: base, constructed: constructed)
        if let len = declared {
            guard len <= b.endIndex - valueStart else {
                throw TLVError(
                    .truncated, offset: afterTag - base,
                    "\(TLVTag.describe(tag)) declares \(len) bytes, \(b.endIndex - valueStart) remain")
            }
            let valueEnd = valueStart + len
            let value = b[valueStart..<valueEnd]
            var children: [TLVNode] = []
            if constructed && rules.parseChildren {
                var j = valueStart
                while j < valueEnd {
                    let (child, next) = try readNode(
                        b[..<valueEnd], at: j, base: base, depth: depth + 1, budget: &budget)
                    children.append(child)
                    j = next
                }
            }
            return (
                TLVNode(
                    tag: tag, offset: i - base, encoded: b[i..<valueEnd], value: value,
                    children: children, isIndefiniteLength: false), valueEnd
            )
        }
        // Indefinite length: children until end-of-contents (00 00).
        var j = valueStart
        var children: [TLVNode] = []
        while true {
            guard j + 1 < b.endIndex else {
                throw TLVError(.truncated, offset: j - base, "missing end-of-contents for \(TLVTag.describe(tag))")
            }
            if b[j] == 0 && b[j + 1] == 0 { break }
            let (child, next) = try readNode(b, at: j, base: base, depth: depth + 1, budget: &budget)
            children.append(child)
            j = next
        }
        return (
            TLVNode(
                tag: tag, offset: i - base, encoded: b[i..<(j + 2)], value: b[valueStart..<j],
                children: children, isIndefiniteLength: true), j + 2
        )
    }
}
