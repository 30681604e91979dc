import DocumentGenerator
import ISO7816
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging
import MRTDTestSupport
import Testing

@testable import VirtualChip

/// SELECT / READ BINARY and their status words (ISO/IEC 7816-4 §11.2.2, §11.3.3; ICAO 9303-10 §3.11).
@Suite struct FileSystemTests {
    static let cardAccess = TestProfiles.cardAccess([(TestProfiles.paceOID(mapping: 2, cipher: 2), 13)])
    static let dg2 = TestProfiles.bigFile(size: 20000)
    static let cardSecurity: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x07]

    static func chip(link: LinkBehaviour = LinkBehaviour()) -> VirtualChip {
        VirtualChip(
            profile: TestProfiles.profile(
                cardAccess: cardAccess,
                extraFiles: [.dg2: dg2, .cardSecurity: cardSecurity], link: link))
    }

    /// A chip with BAC done, and the terminal holding the session.
    static func authenticated(link: LinkBehaviour = LinkBehaviour()) throws -> TestTerminal {
        var terminal = TestTerminal(chip: chip(link: link))
        _ = terminal.plain(.selectApplication(MRTDApplication.lds1AID))
        try terminal.bac(mrzInformation: "L898902C<369080619406236")
        return terminal
    }

    @Test func cardAccessIsFreeToRead() {
        let chip = Self.chip()
        #expect(chip.send(.selectMasterFile()).statusWord == .success)
        #expect(chip.send(.selectFile(0x011C)).statusWord == .success)
        let r = chip.send(.readBinary(offset: 0, ne: 256))
        #expect(r.data == Self.cardAccess)
        #expect(r.statusWord == .endOfFileReached)
        // by short EF identifier as well, also from inside the application
        _ = chip.send(.selectApplication(MRTDApplication.lds1AID))
        let bySFI = chip.send(.readBinary(sfi: 0x1C, offset: 0, ne: Self.cardAccess.count))
        #expect(bySFI.statusWord == .success && bySFI.data == Self.cardAccess)
    }

    @Test func ldsFilesNeedAccessControl() {
        let chip = Self.chip()
        #expect(chip.send(.selectApplication(MRTDApplication.lds1AID)).statusWord == .success)
        #expect(chip.send(.selectFile(0x0101)).statusWord == .success)
        #expect(chip.send(.readBinary(offset: 0, ne: 4)).statusWord == .securityStatusNotSatisfied)
        #expect(chip.send(.readBinary(sfi: 0x02, offset: 0, ne: 4)).statusWord == .securityStatusNotSatisfied)
        // EF.CardSecurity in the MF also needs access control
        _ = chip.send(.selectMasterFile())
        #expect(chip.send(.readBinary(sfi: 0x1D, offset: 0, ne: 4)).statusWord == .securityStatusNotSatisfied)
    }

    @Test(arguments: [
        ("00A4040C07A0000002471002", "6A82"),  // unknown AID
        ("00A4020C020105", "6A82"),  // DG5 absent (MF is current: no EF 0105)
        ("00A4030C020101", "6A86"),  // P1 not supported
        ("00A4020C0101", "6700"),  // FID of one byte
        ("00CA000000", "6D00"),  // GET DATA not offered
        ("80A4000C023F00", "6E00"),  // proprietary class
        ("01A4000C023F00", "6881"),  // logical channel 1
        ("00B0000004", "6986"),  // READ BINARY with no current EF
    ])
    func statusWords(command: String, expected: String) {
        #expect(Self.chip().send(hex: command) == expected)
    }

    @Test func getChallengeWithoutLeIsWrongLength() {
        #expect(Self.chip().send(hex: "00840000") == "6700")
    }

    @Test func selectWithFCP() throws {
        let chip = Self.chip()
        _ = chip.send(.selectApplication(MRTDApplication.lds1AID))
        let r = chip.send(CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x04, data: [0x01, 0x02], ne: 256))
        #expect(r.statusWord == .success)
        #expect(
            hexString(r.data) == "620B8002" + hexString([UInt8(Self.dg2.count >> 8), UInt8(Self.dg2.count & 0xFF)])
                + "82010183020102")
    }

    @Test func offsetsAndEndOfFile() throws {
        var t = try Self.authenticated()
        let com = TestProfiles.com
        // exactly the file → 9000
        let exact = try t.secure(.readBinary(sfi: 0x1E, offset: 0, ne: com.count))
        #expect(exact.statusWord == .success && exact.data == com)
        // more than the file → the rest and 6282
        let over = try t.secure(.readBinary(offset: 4, ne: 100))
        #expect(over.statusWord == .endOfFileReached && over.data == Array(com[4...]))
        // offset at or beyond the end → 6B00
        #expect(try t.secure(.readBinary(offset: com.count, ne: 1)).statusWord == .wrongParametersOffsetOutsideEF)
        #expect(try t.secure(.readBinary(offset: 1000, ne: 1)).statusWord == .wrongParametersOffsetOutsideEF)
        // an absent data group by SFI → 6A82, and the session survives
        #expect(try t.secure(.readBinary(sfi: 0x05, offset: 0, ne: 1)).statusWord == .fileNotFound)
        #expect(try t.secure(.readBinary(sfi: 0x01, offset: 0, ne: 4)).data == Array(TestProfiles.dg1.prefix(4)))
    }

    /// Short secure messaging caps one response at the plaintext that fits (231 bytes with 3DES).
    @Test func shortSecureMessagingCap() throws {
        var t = try Self.authenticated()
        let r = try t.secure(.readBinary(sfi: 0x02, offset: 0, ne: 256))
        #expect(r.statusWord == .success)
        #expect(r.data == Array(Self.dg2.prefix(SecureMessagingSession.maxShortResponsePlaintext(cipher: .tripleDES))))
    }

    /// Extended length: the whole 20,000-byte file in one READ BINARY (6282 because Ne asks for more).
    @Test func extendedRead() throws {
        var t = try Self.authenticated()
        let r = try t.secure(.readBinary(sfi: 0x02, offset: 0, ne: 65536))
        #expect(r.statusWord == .endOfFileReached)
        #expect(r.data == Self.dg2)
        let exact = try t.secure(.readBinary(offset: 0, ne: 20000))
        #expect(exact.statusWord == .success && exact.data.count == 20000)
    }

    /// A chip without extended length answers 6700 (protected, keeping the SSC in step), and plain 6700 before SM.
    @Test func extendedRefused() throws {
        let link = LinkBehaviour(extendedLength: false)
        let plainChip = Self.chip(link: link)
        _ = plainChip.send(.selectMasterFile())
        #expect(
            plainChip.send(CommandAPDU(ins: 0xB0, p1: 0x9C, p2: 0, ne: 10, forceExtended: true)).statusWord
                == .wrongLength)

        var t = try Self.authenticated(link: link)
        #expect(try t.secure(.readBinary(sfi: 0x02, offset: 0, ne: 1000)).statusWord == .wrongLength)
        #expect(t.chip.snapshot.secureMessagingActive)
        let again = try t.secure(.readBinary(sfi: 0x02, offset: 0, ne: 200))
        #expect(again.statusWord == .success && again.data == Array(Self.dg2.prefix(200)))
    }

    @Test func maxReadLengthCaps() throws {
        var t = try Self.authenticated(link: LinkBehaviour(maxReadLength: 100))
        let r = try t.secure(.readBinary(sfi: 0x02, offset: 0, ne: 65536))
        #expect(r.statusWord == .success && r.data == Array(Self.dg2.prefix(100)))
    }

    @Test func sfiUnsupported() throws {
        var t = try Self.authenticated(link: LinkBehaviour(supportsSFI: false))
        #expect(try t.secure(.readBinary(sfi: 0x02, offset: 0, ne: 10)).statusWord == .functionNotSupported)
        #expect(try t.secure(.selectFile(0x0102)).statusWord == .success)
        #expect(try t.secure(.readBinary(offset: 0, ne: 10)).data == Array(Self.dg2.prefix(10)))
    }

    /// Odd INS 'B1': offset in DO'54', data in DO'53', Ne counting the DO header.
    @Test func oddInstruction() throws {
        var t = try Self.authenticated()
        _ = try t.secure(.selectFile(0x0102))
        let r = try t.secure(.readBinaryOdd(offset: 19_000, ne: 104))
        #expect(r.statusWord == .success)
        #expect(r.data == [0x53, 0x66] + Array(Self.dg2[19_000..<19_102]))
        // at the end of the file: 6282 with the rest
        let tail = try t.secure(.readBinaryOdd(offset: 19_990, ne: 256))
        #expect(tail.statusWord == .endOfFileReached)
        #expect(tail.data == [0x53, 0x0A] + Array(Self.dg2[19_990...]))
        #expect(try t.secure(.readBinaryOdd(offset: 20_000, ne: 16)).statusWord == .wrongParametersOffsetOutsideEF)
        // by SFI in P2
        let bySFI = try t.secure(CommandAPDU(ins: 0xB1, p1: 0x00, p2: 0x1E, data: [0x54, 0x01, 0x00], ne: 256))
        #expect(bySFI.data == [0x53, UInt8(TestProfiles.com.count)] + TestProfiles.com)
    }

    /// DG3/DG4 need Extended Access Control, which the chip does not offer: 6982 even after BAC,
    /// and the session survives the refusal.
    @Test func eacProtectedDataGroups() throws {
        var t = TestTerminal(
            chip: VirtualChip(profile: TestProfiles.profile(extraFiles: [.dg3: [0x63, 0x00], .dg4: [0x76, 0x00]])))
        _ = t.plain(.selectApplication(MRTDApplication.lds1AID))
        try t.bac(mrzInformation: "L898902C<369080619406236")
        #expect(try t.secure(.readBinary(sfi: 0x03, offset: 0, ne: 2)).statusWord == .securityStatusNotSatisfied)
        #expect(try t.secure(.selectFile(0x0104)).statusWord == .success)
        #expect(try t.secure(.readBinary(offset: 0, ne: 2)).statusWord == .securityStatusNotSatisfied)
        #expect(try t.secure(.readBinary(sfi: 0x1E, offset: 0, ne: 2)).isSuccess)
    }

    @Test func cardSecurityAfterAccess() throws {
        var t = try Self.authenticated()
        _ = try t.secure(.selectMasterFile())
        let r = try t.secure(.readBinary(sfi: 0x1D, offset: 0, ne: 256))
        #expect(r.data == Self.cardSecurity)
    }

    @Test func resetDropsEverything() throws {
        let t = try Self.authenticated()
        t.chip.reset()
        #expect(!t.chip.snapshot.secureMessagingActive)
        #expect(!t.chip.snapshot.applicationSelected)
    }
}
