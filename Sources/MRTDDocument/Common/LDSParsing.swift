import ASN1TLV

/// Internal helpers shared by the LDS parsers. Every node they handle is parsed from a slice of the file's
/// own byte array, so a node's `encoded.startIndex` is its absolute offset in the file.
struct LDSReader {
    let file: LDSFile?

    /// Parses one node spanning the whole slice (BER, bounded), mapping errors to file offsets.
    func parse(_ bytes: ArraySlice<UInt8>) throws(LDSParseError) -> TLVNode {
        do { return try TLVParser.parse(bytes, rules: .ber) } catch {
            throw LDSParseError(error, file: file, base: bytes.startIndex)
        }
    }

    /// Parses a concatenation of nodes spanning the whole slice.
    func parseAll(_ bytes: ArraySlice<UInt8>) throws(LDSParseError) -> [TLVNode] {
        do { return try TLVParser.parseAll(bytes, rules: .ber) } catch {
            throw LDSParseError(error, file: file, base: bytes.startIndex)
        }
    }

    /// Parses the file's outer template and checks its tag; a file above its kind's cap (`LDSLimits`) is
    /// refused before anything is parsed.
    func parseFile(_ bytes: [UInt8], tag: UInt32) throws(LDSParseError) -> TLVNode {
        try checkLimit(bytes.count)
        let node = try parse(bytes[...])
        try expect(node, tag, "outer template")
        return node
    }

    /// Throws `limitExceeded` when a file of `length` bytes is above its kind's cap.
    func checkLimit(_ length: Int) throws(LDSParseError) {
        if let file { try LDSLimits.check(file, length: length) }
    }

    func error(_ code: LDSParseError.Code, _ node: TLVNode, _ reason: String) -> LDSParseError {
        LDSParseError(code, file: file, offset: node.encoded.startIndex, reason)
    }

    func error(_ code: LDSParseError.Code, at offset: Int, _ reason: String) -> LDSParseError {
        LDSParseError(code, file: file, offset: offset, reason)
    }

    func expect(_ node: TLVNode, _ tag: UInt32, _ what: String) throws(LDSParseError) {
        guard node.tag == tag else {
            throw error(
                .unexpectedTag, node, "expected \(TLVTag.describe(tag)) (\(what)), found \(TLVTag.describe(node.tag))")
        }
    }

    func require(_ node: TLVNode, _ tag: UInt32, _ what: String) throws(LDSParseError) -> TLVNode {
        guard let c = node.child(tag) else {
            throw error(
                .missingElement, node, "missing \(TLVTag.describe(tag)) (\(what)) inside \(TLVTag.describe(node.tag))")
        }
        return c
    }

    func child(_ node: TLVNode, at index: Int, _ what: String) throws(LDSParseError) -> TLVNode {
        guard index < node.children.count else {
            throw error(
                .missingElement, node,
                "\(TLVTag.describe(node.tag)) has \(node.children.count) elements, \(what) missing")
        }
        return node.children[index]
    }

    /// Runs an ASN1TLV value accessor, mapping its error to the node's absolute offset.
    func value<T>(_ node: TLVNode, _ body: (TLVNode) throws(TLVError) -> T) throws(LDSParseError) -> T {
        do { return try body(node) } catch {
            throw LDSParseError(
                error.code == .unexpectedTag ? .unexpectedTag : .invalidValue, file: file,
                offset: node.encoded.startIndex, "\(error.code.rawValue): \(error.reason)")
        }
    }

    func integer(_ node: TLVNode, _ what: String) throws(LDSParseError) -> Int {
        try expect(node, 0x02, what)
        return try value(node) { n throws(TLVError) in try n.integerValue() }
    }

    func oid(_ node: TLVNode, _ what: String) throws(LDSParseError) -> ASN1ObjectIdentifier {
        try expect(node, 0x06, what)
        return try value(node) { n throws(TLVError) in try n.objectIdentifierValue() }
    }

    /// Text of a primitive data object, decoded as UTF-8 (ICAO 9303-10 §4.7: ISO/IEC 8859-1 is also seen in
    /// older documents; bytes that are not valid UTF-8 are decoded as Latin-1).
    func text(_ node: TLVNode) throws(LDSParseError) -> String {
        guard !node.isConstructed else {
            throw error(.unexpectedTag, node, "\(TLVTag.describe(node.tag)) must be primitive")
        }
        return LDSText.decode(node.value)
    }

    /// Reads a length-prefixed big-endian unsigned integer from a byte slice (for ISO 19794 binary records).
    func uint(_ bytes: ArraySlice<UInt8>, at i: Int, size: Int, _ what: String) throws(LDSParseError) -> Int {
        guard i >= bytes.startIndex, size <= bytes.endIndex - i else {
            throw error(
                .malformedTLV, at: i, "truncated \(what): \(size) bytes needed, \(max(0, bytes.endIndex - i)) remain")
        }
        var v = 0
        for k in 0..<size { v = v << 8 | Int(bytes[i + k]) }
        return v
    }
}

/// Text decoding used by the data-group parsers.
enum LDSText {
    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        return String(bytes.map { Character(Unicode.Scalar($0)) })
    }
}
