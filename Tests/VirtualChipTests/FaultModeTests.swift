import DocumentGenerator
import ISO7816
import MRTDDocument
import MRTDTestSupport
import Testing

@testable import VirtualChip

/// `ChipFaults`: the virtual chip answering as some issued chips do, command by command.
@Suite struct FaultModeTests {
    static let cardAccess = FileSystemTests.cardAccess
    static let dg2 = FileSystemTests.dg2

    static func chip(_ faults: ChipFaults) -> VirtualChip {
        VirtualChip(
            profile: TestProfiles.profile(cardAccess: cardAccess, extraFiles: [.dg2: dg2], link: LinkBehaviour()),
            options: VirtualChip.Options(faults: faults))
    }

    @Test func noFaultByDefault() {
        let chip = FileSystemTests.chip()
        #expect(chip.faults == .none)
        let r = chip.send(.readBinary(sfi: 0x1C, offset: 0, ne: 256))
        #expect(r.data == Self.cardAccess)
    }

    @Test func responsesAreChainedThroughGetResponse() {
        let chip = Self.chip(ChipFaults(chainResponsesLongerThan: 10))
        let first = chip.send(.readBinary(sfi: 0x1C, offset: 0, ne: 256))
        #expect(first.data.count == 10)
        #expect(first.statusWord.isMoreDataAvailable)
        var data = first.data
        var sw = first.statusWord
        var parts = 0
        while sw.isMoreDataAvailable && parts < 100 {
            let r = chip.send(.getResponse(ne: 7))
            data += r.data
            sw = r.statusWord
            parts += 1
        }
        #expect(data == Self.cardAccess)
        // the chained response keeps its own status word (the whole file: end reached before Ne)
        #expect(sw == .endOfFileReached)
        #expect(parts == (Self.cardAccess.count - 10 + 6) / 7)
    }

    @Test func anotherCommandDiscardsTheChain() {
        let chip = Self.chip(ChipFaults(chainResponsesLongerThan: 10))
        #expect(chip.send(.readBinary(sfi: 0x1C, offset: 0, ne: 256)).statusWord.isMoreDataAvailable)
        #expect(chip.send(.selectMasterFile()).statusWord == .success)
        // no chain left: GET RESPONSE is an unknown instruction to this chip
        #expect(chip.send(.getResponse(ne: 7)).statusWord == .insNotSupported)
    }

    @Test func wrongLeOnPlainReadsNamesTheExactLength() {
        let chip = Self.chip(ChipFaults(wrongLeOnPlainReads: true))
        let r = chip.send(.readBinary(sfi: 0x1C, offset: 0, ne: 256))
        #expect(r.data.isEmpty)
        #expect(r.statusWord == StatusWord(0x6C, UInt8(Self.cardAccess.count)))
        let exact = chip.send(.readBinary(sfi: 0x1C, offset: 0, ne: Self.cardAccess.count))
        #expect(exact.statusWord == .success && exact.data == Self.cardAccess)
    }

    @Test func shortReadsBringLessAtEveryOffset() throws {
        var terminal = TestTerminal(chip: Self.chip(ChipFaults(shortReads: true)))
        _ = terminal.plain(.selectApplication(MRTDApplication.lds1AID))
        try terminal.bac(mrzInformation: "L898902C<369080619406236")
        let first = try terminal.secure(.readBinary(sfi: LDSFile.dg2.sfi, offset: 0, ne: 200))
        #expect(first.statusWord == .success)
        #expect(first.data.count < 200 && !first.data.isEmpty)
        // at several offsets of the current file
        for o in [1, 2, 3, 500, 1000, 19_000] {
            let r = try terminal.secure(.readBinary(offset: o, ne: 100))
            #expect(r.statusWord == .success)
            #expect(r.data.count < 100 && !r.data.isEmpty, "offset \(o): \(r.data.count) bytes")
            #expect(r.data == Array(Self.dg2[o..<(o + r.data.count)]))
        }
    }

    @Test func emptyReadsFromAnOffset() throws {
        var terminal = TestTerminal(chip: Self.chip(ChipFaults(emptyReadsFromOffset: 1000)))
        _ = terminal.plain(.selectApplication(MRTDApplication.lds1AID))
        try terminal.bac(mrzInformation: "L898902C<369080619406236")
        let before = try terminal.secure(.readBinary(sfi: LDSFile.dg2.sfi, offset: 0, ne: 100))
        #expect(before.data.count == 100)
        let inside = try terminal.secure(.readBinary(offset: 1000, ne: 100))
        #expect(inside.statusWord == .success && inside.data.isEmpty)
    }
}
