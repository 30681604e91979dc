import ASN1TLV
import Testing

/// `TLVLimits`: the element-count and nesting caps bound what a hostile input costs before anything
/// else looks at it (a 16 MB EF.SOD of tiny elements took 33 s and 886 MB).
@Suite struct TLVLimitsTests {
    /// A SEQUENCE whose contents are `count` empty OCTET STRINGs (two bytes each).
    static func tinyElements(_ count: Int) -> [UInt8] {
        let contents = [UInt8](repeating: 0, count: 2 * count).enumerated().map { $0.offset % 2 == 0 ? UInt8(0x04) : 0 }
        let n = contents.count
        return [0x30, 0x84, UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            + contents
    }

    @Test func tooManyElementsIsRefusedNamingTheLimit() throws {
        // one node more than the cap (the SEQUENCE itself counts)
        let hostile = Self.tinyElements(TLVLimits.maxElements)
        do {
            _ = try TLVParser.parse(hostile)
            Issue.record("\(TLVLimits.maxElements + 1) data objects were parsed")
        } catch {
            #expect(error.code == .tooManyElements)
            #expect(error.reason.contains("TLVLimits.maxElements"))
        }
        // exactly at the cap it parses
        let atCap = try TLVParser.parse(Self.tinyElements(TLVLimits.maxElements - 1))
        #expect(atCap.children.count == TLVLimits.maxElements - 1)
        // the count runs across the nodes of parseAll and parsePrefix too
        let flat = [UInt8](repeating: 0, count: 2 * (TLVLimits.maxElements + 1)).enumerated().map {
            $0.offset % 2 == 0 ? UInt8(0x04) : 0
        }
        #expect(throws: TLVError.self) { try TLVParser.parseAll(flat) }
        #expect(throws: TLVError.self) { try TLVParser.parsePrefix(hostile[...]) }
    }

    @Test func tooManyElementsInIndefiniteLengthIsRefused() {
        let contents = [UInt8](repeating: 0, count: 2 * (TLVLimits.maxElements + 1)).enumerated().map {
            $0.offset % 2 == 0 ? UInt8(0x04) : 0
        }
        let hostile = [0x30, 0x80] + contents + [0x00, 0x00]
        let error = #expect(throws: TLVError.self) { try TLVParser.parse(hostile) }
        #expect(error?.code == .tooManyElements)
    }

    @Test func nestingBeyondTheCapIsRefused() throws {
        // depth levels of SEQUENCE around a leaf: the leaf sits at depth `depth`
        func build(_ depth: Int) -> [UInt8] {
            var v: [UInt8] = [0x04, 0x00]
            for _ in 0..<depth {
                let n = v.count
                v = (n < 128 ? [0x30, UInt8(n)] : [0x30, 0x81, UInt8(n)]) + v
            }
            return v
        }
        // 2 + 32 × 2 bytes: every length fits one octet
        #expect(throws: Never.self) { try TLVParser.parse(build(TLVLimits.maxDepth)) }
        do {
            _ = try TLVParser.parse(build(TLVLimits.maxDepth + 1))
            Issue.record("nesting beyond the cap was parsed")
        } catch {
            #expect(error.code == .depthExceeded && error.reason.contains("TLVLimits.maxDepth"))
        }
        var cursor = TLVCursor(build(TLVLimits.maxDepth + 1))
        var depthReached = 0
        do {
            var h = try cursor.next()!
            while true {
                var inner = try cursor.children(of: h)
                depthReached += 1
                guard let next = try inner.next(), next.isConstructed else { break }
                h = next
                cursor = inner
            }
            Issue.record("the cursor went \(depthReached) levels deep")
        } catch {
            #expect(error.code == .depthExceeded)
        }
    }

    @Test func declaredLengthBeyondTheCapIsRefused() {
        let n = TLVLimits.maxLength + 1
        let header: [UInt8] = [
            0x04, 0x84, UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF),
        ]
        let error = #expect(throws: TLVError.self) { try TLVParser.parsePrefix(header[...]) }
        #expect(error?.code == .lengthTooLarge)
        #expect(error?.reason.contains("TLVLimits.maxLength") == true, "\(String(describing: error))")
    }
}
