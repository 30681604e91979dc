import ASN1TLV
import MRTDTestSupport
import Testing

@Suite struct TLVParserTests {
    @Test func shortAndLongFormLengths() throws {
        let short = try TLVParser.parse(hex("0403010203"))
        #expect(short.tag == 0x04 && short.valueBytes == [1, 2, 3])
        let long = [0x04, 0x81, 0x80] + [UInt8](repeating: 0xAA, count: 128)
        let n = try TLVParser.parse(long, rules: .der)
        #expect(n.value.count == 128 && n.encoded.count == 131)
        let two = [0x04, 0x82, 0x01, 0x00] + [UInt8](repeating: 0x55, count: 256)
        #expect(try TLVParser.parse(two).value.count == 256)
    }

    @Test func multiByteTags() throws {
        // DG1: 61 5B 5F1F 58 ...
        let dg1 = hex(
            "615B5F1F58503C443C3C4D55535445524D414E4E3C3C4552494B413C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C433131543030324A4D34443C3C3936303831323246323331303331343C3C3C3C3C3C3C3C3C3C3C3C3C3C3C34"
        )
        let node = try TLVParser.parse(dg1)
        #expect(node.tag == 0x61 && node.isConstructed)
        let mrz = try node.requireChild(0x5F1F)
        #expect(mrz.value.count == 88)
        #expect(mrz.offset == 2)
        // three-byte tag
        let t = try TLVParser.parse(hex("BF810103020100"))
        #expect(t.tag == 0xBF8101 && t.children.count == 1)
    }

    @Test func nodesKeepEncodedBytes() throws {
        let bytes = hex("3009020101300402020080")
        let seq = try TLVParser.parse(bytes)
        #expect(Array(seq.encoded) == bytes)
        #expect(Array(seq.children[1].encoded) == hex("3004020200 80".replacingOccurrences(of: " ", with: "")))
        #expect(try seq.children[0].integerValue() == 1)
        #expect(try seq.children[1].children[0].integerValue() == 128)
    }

    @Test func indefiniteLengthIsBEROnly() throws {
        // SEQUENCE (indefinite) { INTEGER 5 } EOC
        let ber = hex("3080020105 0000".replacingOccurrences(of: " ", with: ""))
        let node = try TLVParser.parse(ber, rules: .ber)
        #expect(node.isIndefiniteLength && node.children.count == 1 && node.encoded.count == ber.count)
        #expect(throws: TLVError.self) { try TLVParser.parse(ber, rules: .der) }
        do {
            _ = try TLVParser.parse(ber, rules: .der)
        } catch {
            #expect(error.code == .indefiniteLengthNotAllowed)
        }
        // primitive with indefinite length is never valid
        #expect(throws: TLVError.self) { try TLVParser.parse(hex("04800000"), rules: .ber) }
    }

    @Test func derRejectsNonMinimalLength() {
        #expect(throws: TLVError.self) { try TLVParser.parse(hex("04810101"), rules: .der) }
        #expect((try? TLVParser.parse(hex("04810101"), rules: .ber)) != nil)
    }

    @Test(arguments: [
        ("0405010203", TLVError.Code.truncated),  // declared length larger than the input
        ("04", .truncated),  // missing length
        ("0485FFFFFFFFFF", .lengthTooLarge),  // 5 length octets
        ("040100FF", .trailingData),  // bytes after the node
        ("1F", .truncated),  // truncated multi-byte tag
        ("3003040500", .truncated),  // child overruns its parent
    ])
    func malformedInputGivesTypedErrors(input: String, code: TLVError.Code) {
        do {
            _ = try TLVParser.parse(hex(input))
            Issue.record("\(input) parsed")
        } catch {
            #expect(error.code == code, "\(input): \(error)")
        }
    }

    @Test func depthIsBounded() {
        var bytes: [UInt8] = [0x05, 0x00]
        for _ in 0..<40 { bytes = TLVWriter.encode(0x30, bytes) }
        #expect(throws: TLVError.self) { try TLVParser.parse(bytes) }
        var rules = TLVParser.Rules.ber
        rules.maxDepth = 64
        #expect((try? TLVParser.parse(bytes, rules: rules)) != nil)
    }

    @Test func declaredLengthLimitIsEnforcedBeforeAllocation() {
        var rules = TLVParser.Rules.ber
        rules.maxLength = 1000
        #expect(throws: TLVError.self) {
            try TLVParser.parse(hex("048203E9") + [UInt8](repeating: 0, count: 1001), rules: rules)
        }
    }

    @Test func peekHeaderWorksOnAFirstChunk() throws {
        let chunk = hex("7582400F7F61824008020101")  // DG2 header: 75 82 400F
        let h = try TLVParser.peekHeader(chunk[...])
        #expect(h.tag == 0x75 && h.headerLength == 4 && h.valueLength == 0x400F)
        #expect(throws: TLVError.self) { try TLVParser.peekHeader(hex("5F")[...]) }
    }

    @Test func parseAllAndPrefix() throws {
        let nodes = try TLVParser.parseAll(hex("800101810102"))
        #expect(nodes.map(\.tag) == [0x80, 0x81])
        let (n, used) = try TLVParser.parsePrefix(hex("800101FFFF")[...])
        #expect(n.tag == 0x80 && used == 3)
    }

    @Test func offsetsAreRelativeToTheInput() throws {
        let bytes = hex("AABB") + hex("3006800101810102")
        let node = try TLVParser.parse(bytes[2...])
        #expect(node.offset == 0 && node.children[1].offset == 5)
        do {
            _ = try TLVParser.parse(hex("30058001018105")[...])
            Issue.record("parsed")
        } catch {
            #expect(error.offset == 6 && error.code == .truncated)
        }
    }
}

@Suite struct ASN1ValueTests {
    @Test(arguments: [
        ("0.4.0.127.0.7.2.2.4.2.2", "06 0A 04007F00070202040202"),
        ("1.2.840.113549.1.1.11", "06 09 2A864886F70D01010B"),
        ("2.23.136.1.1.1", "06 06 678108010101"),
        ("2.999.3", "06 03 883703"),
    ])
    func objectIdentifiersRoundTrip(dotted: String, der: String) throws {
        let bytes = hex(der.replacingOccurrences(of: " ", with: ""))
        let oid = try TLVParser.parse(bytes).objectIdentifierValue()
        #expect(oid.dotted == dotted)
        #expect(DER.objectIdentifier(dotted) == bytes)
    }

    @Test func oidRejectsNonMinimalArc() {
        #expect(throws: TLVError.self) { try TLVParser.parse(hex("0603808001")).objectIdentifierValue() }
        for bad in ["1.2.", "3.1", "1.40", "", "1"] as [String] {
            #expect(ObjectIdentifier(bad) == nil, "\(bad)")
        }
    }

    @Test(arguments: [0, 1, 127, 128, 255, 256, -1, -128, -129, 65535, Int(Int32.max)])
    func integersRoundTrip(v: Int) throws {
        #expect(try TLVParser.parse(DER.integer(v), rules: .der).integerValue() == v)
    }

    @Test func unsignedIntegers() throws {
        let enc = DER.integer(unsigned: [0x00, 0x00, 0x80, 0x01])
        #expect(enc == hex("0203008001"))
        #expect(try TLVParser.parse(enc).unsignedIntegerBytes() == [0x80, 0x01])
        #expect(throws: TLVError.self) { try TLVParser.parse(hex("020180")).unsignedIntegerBytes() }
    }

    @Test func strings() throws {
        #expect(try TLVParser.parse(DER.utf8String("Ærø")).stringValue() == "Ærø")
        #expect(try TLVParser.parse(DER.printableString("UTO")).stringValue() == "UTO")
        #expect(try TLVParser.parse(hex("1E0400550054")).stringValue() == "UT")
        #expect(try TLVParser.parse(hex("1403C64142")).stringValue() == "ÆAB")
        #expect(throws: TLVError.self) { try TLVParser.parse(hex("0C02C328")).stringValue() }
    }

    @Test func times() throws {
        let t = try TLVParser.parse(DER.utcTime(ASN1Time(year: 2031, month: 4, day: 15, hour: 12))).timeValue()
        #expect(t == ASN1Time(year: 2031, month: 4, day: 15, hour: 12))
        let g = try TLVParser.parse(DER.generalizedTime(ASN1Time(year: 2051, month: 1, day: 2))).timeValue()
        #expect(g.year == 2051 && g.description == "2051-01-02T00:00:00Z")
        #expect(try ASN1Time(utcTime: "991231235959Z").year == 1999)
        #expect(try ASN1Time(utcTime: "4912312359Z").year == 2049)
        #expect(try ASN1Time(utcTime: "260101010000+0100") == ASN1Time(year: 2026, month: 1, day: 1))
        #expect(throws: TLVError.self) { try ASN1Time(utcTime: "261301000000Z") }
        #expect(throws: TLVError.self) { try ASN1Time(utcTime: "2601010000") }
        let epoch = ASN1Time(year: 2026, month: 11, day: 29, hour: 17, minute: 4, second: 19)
        #expect(ASN1Time(secondsSince1970: epoch.secondsSince1970) == epoch)
        #expect(ASN1Time(year: 1970, month: 1, day: 1).secondsSince1970 == 0)
        #expect(ASN1Time(year: 2000, month: 3, day: 1).secondsSince1970 == 951_868_800)
    }

    @Test func bitStringAndBoolean() throws {
        #expect(try TLVParser.parse(DER.bitString([0xAB])).bitStringValue() == [0xAB])
        #expect(throws: TLVError.self) { try TLVParser.parse(hex("030203AB")).bitStringValue() }
        #expect(try TLVParser.parse(DER.boolean(true)).booleanValue())
    }

    @Test func constructedOctetStringIsJoined() throws {
        let ber = hex("2480040201020401030000")
        #expect(try TLVParser.parse(ber).octetStringValue() == [1, 2, 3])
    }

    @Test func setOfIsSortedForDER() {
        let s = DER.setOf([DER.integer(3), DER.integer(1), DER.integer(2)])
        #expect(s == hex("3109020101020102020103"))
    }

    @Test func hexHelpers() {
        #expect(Hex.decode("0a:BC 12") == [0x0A, 0xBC, 0x12])
        #expect(Hex.decode("ABC") == nil && Hex.decode("zz") == nil)
        #expect([UInt8]([0, 255]).hexString == "00FF")
        var out = Array("#".utf8)
        Hex.append([0xAB, 0x0C], to: &out, lowercase: true)
        #expect(String(decoding: out, as: UTF8.self) == "#ab0c")
    }

    /// The in-place header writer (secure messaging builds its data objects where they travel) writes what
    /// `TLVWriter.encode` writes, for every length form.
    @Test(arguments: [0, 1, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x1_0000, 0xFF_FFFF, 0x100_0000])
    func inPlaceHeaderMatchesEncode(_ n: Int) {
        let expected = [0x87] + TLVWriter.length(n)
        #expect(TLVWriter.lengthCount(n) == expected.count - 1)
        var buffer = [UInt8](repeating: 0xEE, count: 8)
        let valueStart = buffer.withUnsafeMutableBytes { TLVWriter.writeHeader(0x87, length: n, into: $0, at: 1) }
        #expect(valueStart == 1 + expected.count)
        #expect(Array(buffer[1..<valueStart]) == expected)
        #expect(buffer[0] == 0xEE && buffer[valueStart...].allSatisfy { $0 == 0xEE })
    }
}
