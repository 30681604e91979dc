import ASN1TLV

/// EF.COM (ICAO 9303-10 §4.6.1): `60 { 5F01 LDS version "aabb", 5F36 Unicode version "aabbcc", 5C tag list }`.
/// Deprecated in LDS 1.8 but still present on documents; the tag list names the data groups present.
public struct COMFile: Sendable, Hashable {
    public let raw: [UInt8]
    /// LDS version as stored, e.g. "0107".
    public let ldsVersion: String
    /// Unicode version as stored, e.g. "040000".
    public let unicodeVersion: String
    /// The tags listed in '5C', in order.
    public let tags: [UInt32]
    /// The listed tags that name LDS files.
    public let dataGroups: [LDSFile]
    /// Listed tags that do not name an LDS file.
    public let unknownTags: [UInt32]

    /// "1.7" style rendering of `ldsVersion` when it has the aabb form.
    public var ldsVersionDotted: String? { Self.dotted(ldsVersion, groups: 2) }
    /// "4.0.0" style rendering of `unicodeVersion` when it has the aabbcc form.
    public var unicodeVersionDotted: String? { Self.dotted(unicodeVersion, groups: 3) }

    public init(bytes: [UInt8]) throws(LDSParseError) {
        let r = LDSReader(file: .com)
        raw = bytes
        let root = try r.parseFile(bytes, tag: 0x60)
        ldsVersion = try r.text(try r.require(root, 0x5F01, "LDS version"))
        unicodeVersion = try r.text(try r.require(root, 0x5F36, "Unicode version"))
        let list = try r.require(root, 0x5C, "tag list")
        tags = try Self.tagList(list, reader: r)
        dataGroups = tags.compactMap { LDSFile(tag: $0) }
        unknownTags = tags.filter { LDSFile(tag: $0) == nil }
    }

    /// Splits a '5C' tag list value into BER tags (ISO/IEC 7816-4 §5.2 tag rules).
    static func tagList(_ node: TLVNode, reader r: LDSReader) throws(LDSParseError) -> [UInt32] {
        guard !node.isConstructed else { throw r.error(.unexpectedTag, node, "tag list '5C' must be primitive") }
        var tags: [UInt32] = []
        let v = node.value
        var i = v.startIndex
        while i < v.endIndex {
            var tag = UInt32(v[i])
            i += 1
            if tag & 0x1F == 0x1F {
                var n = 0
                while true {
                    guard i < v.endIndex, n < 3 else {
                        throw r.error(.invalidValue, at: i, "truncated or overlong tag in the tag list")
                    }
                    let o = v[i]
                    tag = tag << 8 | UInt32(o)
                    i += 1
                    n += 1
                    if o & 0x80 == 0 { break }
                }
            }
            tags.append(tag)
        }
        return tags
    }

    static func dotted(_ s: String, groups: Int) -> String? {
        let c = Array(s)
        guard c.count == groups * 2, c.allSatisfy(\.isASCII), c.allSatisfy({ $0.isNumber }) else { return nil }
        return (0..<groups).map { String(Int(String(c[($0 * 2)..<($0 * 2 + 2)]))!) }.joined(separator: ".")
    }
}
