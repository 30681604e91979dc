import ASN1TLV
import MRTDDocument
import MRTDTestSupport
import Testing

/// DG5, DG7, DG11, DG12 and DG16 as a person reads them, on the worked examples of ICAO 9303-10 Appendix A
/// (published test figures), with hostile twins. No specimen fixture in the shared/fixtures folder beside the
/// checkout holds DG11, DG12 or DG16 (bsi2008, nl-2006 and bsi-tr03105-5 carry COM, SOD, DG1–DG4, DG14, DG15
/// only): generated documents cover them end to end in MRTDReaderTests and VirtualChipTests.
@Suite("Personal data groups DG5/DG7/DG11/DG12/DG16 (ICAO 9303-10 §4.7)")
struct PersonalDataGroupTests {
    static func t(_ tag: UInt32, _ s: String) -> [UInt8] { TLVWriter.encode(tag, Array(s.utf8)) }
    static func t(_ tag: UInt32, _ b: [UInt8]) -> [UInt8] { TLVWriter.encode(tag, b) }

    /// ICAO 9303-10 Appendix A.5, EF.DG11: the elements as printed. The appendix gives the outer length as
    /// '63' but its elements add up to 0x60 bytes; the encoder computes the length.
    static let appendixDG11 = t(
        0x6B,
        t(0x5C, [0x5F, 0x0E, 0x5F, 0x11, 0x5F, 0x42, 0x5F, 0x12, 0x5F, 0x13])
            + t(0x5F0E, "SMITH<<JOHN<J") + t(0x5F11, "ANYTOWN<MN") + t(0x5F42, "123 MAPLE RD<ANYTOWN<MN")
            + t(0x5F12, "16125551212") + t(0x5F13, "TRAVEL<AGENT"))

    /// ICAO 9303-10 Appendix A.6, EF.DG16, byte for byte.
    static let appendixDG16 = Hex.decode(
        "7081A2020102A14C5F500832303032303130315F5110534D4954483C3C434841524C45533C525F520B31393532353535313231325F531D313233"
            + "204D41504C452052443C414E59544F574E3C4D4E3C3535313030A24F5F500832303032303331355F510D42524F574E3C3C4D4152593C4A5F52"
            + "0B31343135353535313231325F5323343920524544574F4F44204C4E3C4F4345414E20425245455A453C43413C3934303030")!

    @Test func appendixDG11ReadsAsAPersonWould() throws {
        #expect(Self.appendixDG11.count == 2 + 0x60)
        let g = try DG11File(bytes: Self.appendixDG11)
        #expect(g.tagList == [0x5F0E, 0x5F11, 0x5F42, 0x5F12, 0x5F13])
        let n = LDSFields.name(try #require(g.fullName))
        #expect(n.primary == "SMITH" && n.secondary == "JOHN J")
        #expect(LDSFields.parts(try #require(g.placeOfBirth)) == ["ANYTOWN", "MN"])
        #expect(LDSFields.parts(try #require(g.address)) == ["123 MAPLE RD", "ANYTOWN", "MN"])
        #expect(g.telephone == "16125551212")
        #expect(LDSFields.readable(try #require(g.profession)) == "TRAVEL AGENT")
        #expect(g.otherNames.isEmpty && g.otherNamesDeclaredCount == nil && g.title == nil && g.fullDateOfBirth == nil)
    }

    @Test func appendixDG16HasTwoPersons() throws {
        let g = try DG16File(bytes: Self.appendixDG16)
        #expect(g.declaredCount == 2 && g.persons.count == 2)
        let (a, b) = (g.persons[0], g.persons[1])
        #expect(LDSFields.name(try #require(a.name)) == LDSFields.Name(primary: "SMITH", secondary: "CHARLES R"))
        #expect(LDSFields.name(try #require(b.name)) == LDSFields.Name(primary: "BROWN", secondary: "MARY J"))
        #expect(LDSFields.iso8601(try #require(a.dateRecorded)) == "2002-01-01")
        #expect(LDSFields.iso8601(try #require(b.dateRecorded)) == "2002-03-15")
        #expect(a.telephone == "19525551212" && b.telephone == "14155551212")
        #expect(LDSFields.parts(try #require(a.address)) == ["123 MAPLE RD", "ANYTOWN", "MN", "55100"])
        #expect(LDSFields.parts(try #require(b.address)) == ["49 REDWOOD LN", "OCEAN BREEZE", "CA", "94000"])
    }

    /// A name in national characters carries no '<<' (and some documents store other names bare, without 'A0').
    @Test func nameWithoutSeparatorIsAllPrimaryAndBareOtherNamesAreRead() throws {
        let dg11 = Self.t(
            0x6B, Self.t(0x5C, [0x5F, 0x0E, 0x5F, 0x0F]) + Self.t(0x5F0E, "ÅSA ÖBERG") + Self.t(0x5F0F, "OBERG<<ASA"))
        let g = try DG11File(bytes: dg11)
        #expect(LDSFields.name(try #require(g.fullName)) == LDSFields.Name(primary: "ÅSA ÖBERG", secondary: ""))
        #expect(g.otherNames == ["OBERG<<ASA"] && g.otherNamesDeclaredCount == nil)
    }

    @Test func fillersBecomeSpaces() {
        #expect(LDSFields.readable("NONE<<<") == "NONE")
        #expect(LDSFields.readable("<SEE  PAGE<51<") == "SEE PAGE 51")
        #expect(LDSFields.parts("ZENITH<<UTOPIA<") == ["ZENITH", "UTOPIA"])
        #expect(
            LDSFields.name("ERIKSSON<<ANNA<MARIA<<<<") == LDSFields.Name(primary: "ERIKSSON", secondary: "ANNA MARIA"))
    }

    @Test(arguments: [
        ("19740812", "1974-08-12"), ("20240229", "2024-02-29"), ("20000229", "2000-02-29"),
        ("20210416093000", "2021-04-16T09:30:00"), ("20161115013612", "2016-11-15T01:36:12"),
    ])
    func validDatesBecomeISO8601(raw: String, iso: String) {
        #expect(LDSFields.iso8601(raw) == iso)
    }

    @Test(arguments: [
        "20230229", "19000229", "19741300", "19740800", "19740431", "1974<<<<", "197408", "19740812XX",
        "20210416240000", "20210416096000", "20210416093060", "00000101", "", "１９７４０８１２",
    ])
    func otherDatesStayRaw(raw: String) {
        #expect(LDSFields.iso8601(raw) == nil)
    }

    /// Older documents store dates as packed BCD: converted to digits, then ISO 8601.
    @Test func bcdDatesConvert() throws {
        let dg12 = Self.t(
            0x6C,
            Self.t(0x5F26, [0x20, 0x21, 0x09, 0x15]) + Self.t(0x5F55, [0x20, 0x17, 0x11, 0x15, 0x01, 0x36, 0x12]))
        let g = try DG12File(bytes: dg12)
        #expect(LDSFields.iso8601(try #require(g.dateOfIssue)) == "2021-09-15")
        #expect(LDSFields.iso8601(try #require(g.personalizationTime)) == "2017-11-15T01:36:12")
    }

    @Test func declaredCountThatDiffersIsKeptForTheCaller() throws {
        let dg12 = Self.t(0x6C, Self.t(0xA0, [0x02, 0x01, 0x02] + Self.t(0x5F1A, "SMITH<<BRENDA<P")))
        let g = try DG12File(bytes: dg12)
        #expect(g.otherPersons == ["SMITH<<BRENDA<P"] && g.otherPersonsDeclaredCount == 2)
    }

    // MARK: hostile twins

    @Test func truncatedFilesAreRefused() {
        for bytes in [Self.appendixDG11, Self.appendixDG16, Build.dg12, Build.dg5, Build.dg7] {
            for cut in [1, 2, bytes.count / 2, bytes.count - 1] {
                let short = Array(bytes.prefix(cut))
                #expect(throws: LDSParseError.self) { _ = try LDSFileContent.parse(Self.file(of: bytes), bytes: short) }
            }
        }
    }

    static func file(of bytes: [UInt8]) -> LDSFile {
        switch bytes.first {
        case 0x6B: return .dg11
        case 0x6C: return .dg12
        case 0x70: return .dg16
        case 0x65: return .dg5
        default: return .dg7
        }
    }

    @Test func wrongTagsAreRefused() {
        #expect(throws: LDSParseError.self) { try DG11File(bytes: Build.dg12) }  // '6C' is not DG11
        #expect(throws: LDSParseError.self) { try DG12File(bytes: Self.appendixDG11) }
        #expect(throws: LDSParseError.self) { try DG16File(bytes: Self.appendixDG11) }
        #expect(throws: LDSParseError.self) { try DisplayedImageFile(file: .dg7, bytes: Build.dg5) }
        // an 'A0' whose content is not TLV
        #expect(throws: LDSParseError.self) { try DG12File(bytes: Self.t(0x6C, Self.t(0xA0, "ERIKSSON<<LARS"))) }
        // trailing bytes after the outer template
        #expect(throws: LDSParseError.self) { try DG11File(bytes: Self.appendixDG11 + [0x00]) }
        // DG16 without its count
        #expect(throws: LDSParseError.self) {
            try DG16File(bytes: Self.t(0x70, Self.t(0xA1, Self.t(0x5F51, "SMITH<<J"))))
        }
    }

    @Test(arguments: [[0x00] as [UInt8], [0x64], [0x00, 0x64], [0xFF, 0xFF], [0x01, 0x02, 0x03], []])
    func countsOutsideOneToNinetyNineAreRefused(count: [UInt8]) {
        let a0 = Self.t(0xA0, Self.t(0x02, count) + Self.t(0x5F0F, "SMITH<<J"))
        #expect(throws: LDSParseError.self) { try DG11File(bytes: Self.t(0x6B, a0)) }
        #expect(throws: LDSParseError.self) {
            try DG12File(bytes: Self.t(0x6C, Self.t(0xA0, Self.t(0x02, count) + Self.t(0x5F1A, "SMITH<<J"))))
        }
        #expect(throws: LDSParseError.self) {
            try DG16File(bytes: Self.t(0x70, Self.t(0x02, count) + Self.t(0xA1, Self.t(0x5F51, "SMITH<<J"))))
        }
        #expect(throws: LDSParseError.self) {
            try DisplayedImageFile(
                file: .dg5, bytes: Self.t(0x65, Self.t(0x02, count) + Self.t(0x5F40, Build.jpeg(width: 2, height: 2))))
        }
    }

    @Test func moreThanNinetyNineEntriesAreRefused() {
        let names = (0..<100).flatMap { Self.t(0x5F0F, "N\($0)<<X") }
        #expect(throws: LDSParseError.self) { try DG11File(bytes: Self.t(0x6B, names)) }
        #expect(throws: LDSParseError.self) {
            try DG11File(bytes: Self.t(0x6B, Self.t(0xA0, Self.t(0x02, [99]) + names)))
        }
        let persons = (0..<100).flatMap { Self.t(0x5F1A, "P\($0)<<X") }
        #expect(throws: LDSParseError.self) { try DG12File(bytes: Self.t(0x6C, persons)) }
        let templates = (0..<100).flatMap { Self.t(0xA1, Self.t(0x5F51, "P\($0)<<X")) }
        #expect(throws: LDSParseError.self) { try DG16File(bytes: Self.t(0x70, Self.t(0x02, [99]) + templates)) }
        let images = (0..<100).flatMap { _ in Self.t(0x5F40, Build.jpeg(width: 2, height: 2)) }
        #expect(throws: LDSParseError.self) {
            try DisplayedImageFile(file: .dg5, bytes: Self.t(0x65, Self.t(0x02, [99]) + images))
        }
        // 99 is accepted
        let ok = (0..<99).flatMap { Self.t(0x5F0F, "N\($0)<<X") }
        #expect((try? DG11File(bytes: Self.t(0x6B, ok)))?.otherNames.count == 99)
    }
    /// Every single-bit flip of every byte of the appendix examples and the hand-built DG12/DG5/DG7: the parser
    /// returns a value or a typed error, and what a person reads is derived from any value without trapping.
    @Test func everySingleBitFlipParsesOrThrows() {
        var values = 0
        var errors = 0
        for seed in [Self.appendixDG11, Self.appendixDG16, Build.dg11, Build.dg12, Build.dg16, Build.dg5, Build.dg7] {
            let file = Self.file(of: seed)
            for i in seed.indices {
                for bit in 0..<8 {
                    let b = flipBit(seed, at: i, bit: bit)
                    do {
                        switch try LDSFileContent.parse(file, bytes: b) {
                        case .dg11(let g):
                            _ = (
                                g.fullName.map(LDSFields.name), g.otherNames.map(LDSFields.name),
                                g.address.map(LDSFields.parts),
                                g.fullDateOfBirth.flatMap(LDSFields.iso8601), g.profession.map(LDSFields.readable)
                            )
                        case .dg12(let g):
                            _ = (
                                g.dateOfIssue.flatMap(LDSFields.iso8601),
                                g.personalizationTime.flatMap(LDSFields.iso8601),
                                g.imageOfFront.map { ImageFormat.dimensions($0) }, g.otherPersons.map(LDSFields.name)
                            )
                        case .dg16(let g):
                            _ = g.persons.map {
                                ($0.name.map(LDSFields.name), $0.dateRecorded.flatMap(LDSFields.iso8601))
                            }
                        case .displayedImage(let g):
                            _ = g.images.map(\.dimensions)
                        default: break
                        }
                        values += 1
                    } catch {
                        #expect(error.offset >= 0 && error.offset <= b.count, "\(error)")
                        errors += 1
                    }
                }
            }
        }
        #expect(values > 0 && errors > 0)
    }
}
