import ASN1TLV
import MRTDTestSupport
import Testing

@testable import MRTDDocument

/// `LDSLimits`: every file kind has a cap checked before it is parsed (a 16 MB EF.SOD of tiny
/// elements cost 33 s / 886 MB, a 10 MB DG11 28 s / 844 MB, an EF.COM tag list of 1 MB 8–18 s). Hostile
/// files are generated here.
@Suite struct LDSLimitsTests {
    /// `tag` around `count` bytes of tiny elements (empty OCTET STRINGs, two bytes each).
    static func tinyElements(_ tag: UInt32, bytes count: Int) -> [UInt8] {
        let contents = (0..<count).map { $0 % 2 == 0 ? UInt8(0x04) : 0 }
        return TLVWriter.encode(tag, contents)
    }

    static func expectLimit(
        _ file: LDSFile, _ name: String, _ body: () throws(LDSParseError) -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            try body()
            Issue.record("\(file.rawValue) above LDSLimits.\(name) was parsed", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .limitExceeded, "\(error)", sourceLocation: sourceLocation)
            #expect(
                error.file == file && error.reason.contains("LDSLimits.\(name)"), "\(error)",
                sourceLocation: sourceLocation)
        }
    }

    @Test func sixteenMegabyteSODOfTinyElementsIsRefused() {
        let sod = Self.tinyElements(0x77, bytes: 16 << 20)
        Self.expectLimit(.sod, "maxSignedFileBytes") { () throws(LDSParseError) in _ = try SODFile(bytes: sod) }
        // one byte above the cap
        let justAbove = Self.tinyElements(0x77, bytes: LDSLimits.maxSignedFileBytes - 4 + 1)
        #expect(justAbove.count > LDSLimits.maxSignedFileBytes)
        Self.expectLimit(.sod, "maxSignedFileBytes") { () throws(LDSParseError) in _ = try SODFile(bytes: justAbove) }
    }

    @Test func tenMegabyteDG11IsRefused() {
        let dg11 = TLVWriter.encode(
            0x6B, TLVWriter.encode(0x5C, [0x5F, 0x0E]) + Self.tinyElements(0x5F0E, bytes: 10 << 20))
        Self.expectLimit(.dg11, "maxSmallDataGroupBytes") { () throws(LDSParseError) in _ = try DG11File(bytes: dg11) }
    }

    @Test func megabyteCOMTagListIsRefused() {
        let tags = [UInt8](repeating: 0x61, count: 1 << 20)
        let com = TLVWriter.encode(
            0x60,
            TLVWriter.encode(0x5F01, Array("0107".utf8)) + TLVWriter.encode(0x5F36, Array("040000".utf8))
                + TLVWriter.encode(0x5C, tags))
        Self.expectLimit(.com, "maxCOMBytes") { () throws(LDSParseError) in _ = try COMFile(bytes: com) }
        // a genuine EF.COM is far below it
        let genuine = TLVWriter.encode(
            0x60,
            TLVWriter.encode(0x5F01, Array("0107".utf8)) + TLVWriter.encode(0x5F36, Array("040000".utf8))
                + TLVWriter.encode(0x5C, [0x61, 0x75, 0x6B, 0x6C, 0x6E, 0x6F]))
        #expect(throws: Never.self) { try COMFile(bytes: genuine) }
    }

    @Test func securityInfosFilesAboveTheirCapsAreRefused() {
        for (file, bytes) in [
            (LDSFile.dg14, Self.tinyElements(0x6E, bytes: 1 << 20)),
            (.cardAccess, Self.tinyElements(0x31, bytes: 1 << 20)),
            (.cardSecurity, Self.tinyElements(0x30, bytes: 1 << 20)),
        ] {
            do {
                switch file {
                case .dg14: _ = try SecurityInfos.parseDG14(bytes)
                case .cardAccess: _ = try SecurityInfos.parseCardAccess(bytes)
                default: _ = try CardSecurityContent.eContent(of: bytes)
                }
                Issue.record("\(file.rawValue) above its cap was parsed")
            } catch {
                #expect(error.code == .limitExceeded && error.reason.contains("LDSLimits."), "\(error)")
            }
        }
    }

    @Test func activeAuthenticationKeyAboveTheCapIsRefused() {
        func dg15(modulusBits: Int) -> [UInt8] {
            var n = [UInt8](repeating: 0xA5, count: modulusBits / 8)
            n[0] = 0xC5
            let rsaKey = TLVWriter.encode(0x30, TLVWriter.encode(0x02, [0] + n) + TLVWriter.encode(0x02, [1, 0, 1]))
            let alg = TLVWriter.encode(
                0x30, TLVWriter.encode(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]) + [0x05, 0x00])
            return TLVWriter.encode(0x6F, TLVWriter.encode(0x30, alg + TLVWriter.encode(0x03, [0] + rsaKey)))
        }
        Self.expectLimit(.dg15, "maxActiveAuthenticationRSABits") { () throws(LDSParseError) in
            _ = try DG15File(bytes: dg15(modulusBits: 8192))
        }
        #expect(throws: Never.self) { try DG15File(bytes: dg15(modulusBits: LDSLimits.maxActiveAuthenticationRSABits)) }
    }

    @Test(.sharedFixtures) func everyKindHasACapAndTheLargestHoldsTheRealDG2Sample() throws {
        for f in LDSFile.allCases {
            #expect(LDSLimits.maximumLength(of: f) >= 1024 && LDSLimits.maximumLength(of: f) <= LDSLimits.maxFileBytes)
            #expect(LDSLimits.violation(f, length: LDSLimits.maximumLength(of: f)) == nil)
            #expect(LDSLimits.violation(f, length: LDSLimits.maximumLength(of: f) + 1)?.code == .limitExceeded)
        }
        // the ISO/IEC 39794-5 sample face block (876 KB) fits a DG2 with room to spare
        let block = try Fixtures.bytes("lds-samples/DG2-iso39794-5-sample.der")
        #expect(block.count + 64 <= LDSLimits.maximumLength(of: .dg2))
    }
}
