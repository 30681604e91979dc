import Foundation
import MRTDTestSupport
import Testing

@testable import ASN1TLV

/// `TLVCursor` must see exactly the structure `TLVParser` builds, and refuse what it refuses.
struct TLVCursorTests {
    /// Walks a cursor region and the parser's children side by side.
    static func expectSameStructure(
        _ cursor: TLVCursor, _ nodes: [TLVNode], base: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var c = cursor
        var i = 0
        while let h = try c.next() {
            try #require(i < nodes.count, "cursor found more objects than the parser", sourceLocation: sourceLocation)
            let n = nodes[i]
            #expect(h.tag == n.tag, sourceLocation: sourceLocation)
            #expect(h.start - base == n.offset, sourceLocation: sourceLocation)
            #expect(Array(c.encoded(h)) == Array(n.encoded), sourceLocation: sourceLocation)
            #expect(Array(c.value(h)) == Array(n.value), sourceLocation: sourceLocation)
            #expect(h.isIndefiniteLength == n.isIndefiniteLength, sourceLocation: sourceLocation)
            if h.isConstructed {
                try expectSameStructure(try c.children(of: h), n.children, base: base, sourceLocation: sourceLocation)
            }
            i += 1
        }
        #expect(i == nodes.count, sourceLocation: sourceLocation)
    }

    static let samples: [[UInt8]] = [
        // SEQUENCE { INTEGER 5, SET { OID 2.5.4.6, PrintableString "UT" }, [0] { OCTET STRING 01 02 } }
        DER.sequence(
            DER.integer(5), DER.set([DER.objectIdentifier("2.5.4.6"), DER.printableString("UT")]),
            DER.explicit(0, DER.octetString([1, 2]))),
        // BER: SEQUENCE (indefinite) { SEQUENCE (indefinite) { INTEGER 7 } EOC, BOOLEAN TRUE } EOC
        [0x30, 0x80, 0x30, 0x80, 0x02, 0x01, 0x07, 0x00, 0x00, 0x01, 0x01, 0xFF, 0x00, 0x00],
        // two-octet tag (5F1F) and a long-form length
        TLVWriter.encode(0x61, children: [TLVWriter.encode(0x5F1F, [UInt8](repeating: 0x3C, count: 200))]),
    ]

    @Test(arguments: 0..<samples.count)
    func seesWhatTheParserSees(_ index: Int) throws {
        let bytes = Self.samples[index]
        let tree = try TLVParser.parse(bytes, rules: .ber)
        try Self.expectSameStructure(TLVCursor(bytes), [tree], base: 0)
        // The same on a slice that does not start at index 0 (indices are the slice's).
        let padded = [0xEE, 0xEE] + bytes + [0xEE]
        let slice = padded[2..<(2 + bytes.count)]
        try Self.expectSameStructure(TLVCursor(slice), [tree], base: 2)
    }

    @Test(.sharedFixtures) func realCertificateHasTheSameStructure() throws {
        let bytes = try SharedFixtures.bytes("masterlists/NL_ROOT_CA.cer")
        try Self.expectSameStructure(TLVCursor(bytes), [try TLVParser.parse(bytes)], base: 0)
    }

    @Test func refusesWhatTheParserRefuses() throws {
        // Declared length beyond the input.
        var c = TLVCursor([0x30, 0x05, 0x02, 0x01, 0x01])
        #expect(throws: TLVError.self) { try c.next() }
        // A child running past its parent's end.
        var outer = TLVCursor([0x30, 0x03, 0x02, 0x05, 0x01, 0x02, 0x03, 0x04])
        let h = try #require(try outer.next())
        var inner = try outer.children(of: h)
        #expect(throws: TLVError.self) { try inner.next() }
        // Indefinite length without end-of-contents; indefinite length under DER.
        var noEOC = TLVCursor([0x30, 0x80, 0x02, 0x01, 0x01])
        #expect(throws: TLVError.self) { try noEOC.next() }
        var der = TLVCursor([0x30, 0x80, 0x00, 0x00], rules: .der)
        #expect(throws: TLVError.self) { try der.next() }
        // Children of a primitive object; the wrong tag where one is required.
        var prim = TLVCursor([0x04, 0x01, 0xAA])
        let p = try #require(try prim.next())
        #expect(throws: TLVError.self) { try prim.children(of: p) }
        var wrong = TLVCursor([0x04, 0x01, 0xAA])
        #expect(throws: TLVError.self) { try wrong.next(0x30, "SEQUENCE") }
        var empty = TLVCursor([UInt8]())
        #expect(try empty.next() == nil)
        #expect(throws: TLVError.self) { try empty.next(0x30, "SEQUENCE") }
    }

    @Test func depthIsBounded() throws {
        var bytes: [UInt8] = [0x05, 0x00]
        for _ in 0..<40 { bytes = TLVWriter.encode(0x30, bytes) }
        var rules = TLVParser.Rules.ber
        rules.maxDepth = 32
        var c = TLVCursor(bytes, rules: rules)
        var h = try #require(try c.next())
        var depthReached = 0
        do {
            while true {
                var inner = try c.children(of: h)
                guard let next = try inner.next(), next.isConstructed else { break }
                c = inner
                h = next
                depthReached += 1
            }
            Issue.record("nesting of 40 was not refused")
        } catch {
            #expect(error.code == .depthExceeded)
            #expect(depthReached <= 32)
        }
        // Indefinite lengths nested too deeply are refused while stepping over them.
        var deep: [UInt8] = [0x05, 0x00]
        for _ in 0..<40 { deep = [0x30, 0x80] + deep + [0x00, 0x00] }
        var d = TLVCursor(deep, rules: rules)
        #expect(throws: TLVError.self) { try d.next() }
    }

    @Test func peekAndValueReaders() throws {
        let bytes = DER.sequence(DER.integer(300), DER.utf8String("Utopia"), DER.objectIdentifier("2.23.136.1.1.2"))
        var top = TLVCursor(bytes)
        let seq = try top.next(0x30, "SEQUENCE")
        #expect(top.isAtEnd)
        var fields = try top.children(of: seq)
        #expect(try fields.peekTag() == 0x02)
        #expect(try fields.node(try fields.next(0x02, "INTEGER")).integerValue() == 300)
        #expect(try fields.node(try fields.next(0x0C, "UTF8String")).stringValue() == "Utopia")
        let oid = try fields.next(0x06, "OID")
        #expect(try fields.node(oid).objectIdentifierValue() == ASN1ObjectIdentifier("2.23.136.1.1.2"))
        try ASN1ObjectIdentifier.validate(contents: fields.value(oid))
        #expect(try fields.peekTag() == nil)
        #expect(throws: TLVError.self) { try ASN1ObjectIdentifier.validate(contents: [0x55, 0x80, 0x06]) }
        #expect(throws: TLVError.self) { try ASN1ObjectIdentifier.validate(contents: [0x55, 0x86]) }
        #expect(throws: TLVError.self) { try ASN1ObjectIdentifier.validate(contents: []) }
    }
}
