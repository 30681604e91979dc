import DocumentGenerator
import ISO7816
import MRTDDocument
import MRTDReader
import Testing

/// APDU counts (the read's cost on a slow link), asserted from the transport's statistics.
@Suite struct TransportEfficiencyTests {
    func dg2Reads(_ r: ReadResult) -> Int { r.fileFacts[.dg2]?.apdus ?? -1 }

    @Test func shortAPDUsUnderAESReadA20KBDG2InAtMost90Commands() async throws {
        let doc = try VirtualDocument("short-only", options: GeneratorOptions(dg2Size: 20_000))
        #expect(doc.generated.profile.files[.dg2]!.count == 20_000)
        let r = try await doc.read()
        #expect(!r.usedExtendedLength)
        #expect(r.chunkSize == 223)
        #expect(r.files[.dg2]!.count == 20_000)
        #expect(dg2Reads(r) <= 90, "DG2 took \(dg2Reads(r)) READ BINARY")
        #expect(dg2Reads(r) == (20_000 + 222) / 223)
    }

    @Test func extendedLengthReadsA20KBDG2InAtMost2Commands() async throws {
        let doc = try VirtualDocument("extended", options: GeneratorOptions(dg2Size: 20_000))
        let r = try await doc.read()
        #expect(r.usedExtendedLength)
        #expect(dg2Reads(r) <= 2, "DG2 took \(dg2Reads(r)) READ BINARY")
        #expect(r.files[.dg2]! == doc.generated.profile.files[.dg2]!)
    }

    @Test(arguments: ["pace-cam", "pace-gm-brainpool-aes128", "short-only", "bac"])
    func fullReadSpendsNoSelectPerFile(profile: String) async throws {
        let doc = try VirtualDocument(profile)
        let r = try await doc.read()
        let selects = r.statistics.apdusByInstruction[0xA4] ?? 0
        // exactly one SELECT: the eMRTD application; every file is read by short EF identifier
        #expect(selects == 1, "\(selects) SELECTs")
        #expect(r.files.count >= 8)
    }

    @Test func chipWithoutShortFileIdentifiersFallsBackToSelect() async throws {
        let doc = try VirtualDocument("pace-gm-brainpool-aes128") { $0.supportsSFI = false }
        let r = try await doc.read()
        #expect(r.files[.dg2] == doc.generated.profile.files[.dg2])
        #expect(doc.verify(r).status == .accepted)
        #expect((r.statistics.apdusByInstruction[0xA4] ?? 0) > 1)
    }

    @Test func chipThatReturnsLessThanAskedIsFollowed() async throws {
        let doc = try VirtualDocument("pace-gm-p256-aes256") { $0.maxReadLength = 100 }
        let r = try await doc.read()
        #expect(r.files[.dg2] == doc.generated.profile.files[.dg2])
        #expect(doc.verify(r).status == .accepted)
    }

    @Test func readerWithoutExtendedLengthUsesShortAPDUs() async throws {
        // chip takes extended length, the reader path does not
        let doc = try VirtualDocument("extended", capabilities: .shortOnly)
        let r = try await doc.read()
        #expect(!r.usedExtendedLength)
        #expect(r.files[.dg2] == doc.generated.profile.files[.dg2])
    }

    @Test func noFileIsReadTwice() async throws {
        let doc = try VirtualDocument("short-only")
        let r = try await doc.read()
        let readBinaries = r.statistics.apdusByInstruction[0xB0] ?? 0
        // one per 223-byte chunk of every file, plus EF.CardAccess (one plain read) and one for each file the
        // chip does not have (a single READ BINARY answered 6A82)
        let minimum =
            r.files.filter { $0.key != .cardAccess }.values.reduce(0) { $0 + ($1.count + 222) / 223 } + 1
            + r.unreadFiles.count
        #expect(readBinaries == minimum, "\(readBinaries) READ BINARY vs \(minimum) needed")
    }
}

@Suite struct ProbeAndParseTests {
    @Test func chipWithoutExtendedLengthBehindAnExtendedReaderFallsBackToShort() async throws {
        // the reader path carries extended APDUs, the chip refuses them (6700 to the EF.CardAccess probe)
        let doc = try VirtualDocument("short-only", capabilities: .extended)
        let r = try await doc.read()
        #expect(!r.usedExtendedLength)
        #expect(r.chunkSize == 223)
        #expect(doc.verify(r).status == .accepted)
    }

    @Test(arguments: SpecimenGenerator.profileNames)
    func everyFileOfEveryGeneratedDocumentParses(profile: String) throws {
        let g = try SpecimenGenerator.generate(named: profile)
        let doc = LDSDocument(files: g.profile.files)
        #expect(doc.errors.isEmpty, "\(profile): \(doc.errors)")
        #expect(doc.mrz?.isValid == true)
        #expect(doc.faceImage?.format == g.spec.faceFormat)
        #expect(doc.sod?.ldsSecurityObject.dataGroupNumbers.isEmpty == false)
        if let ca = g.profile.files[.cardAccess] { #expect((try? SecurityInfos.parseCardAccess(ca)) != nil) }
        if let dg14 = g.profile.files[.dg14] { #expect((try? SecurityInfos.parseDG14(dg14)) != nil) }
        if let cs = g.profile.files[.cardSecurity] { #expect((try? SecurityInfos.parseCardSecurity(cs)) != nil) }
    }
}
