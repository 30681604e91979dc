import ISO7816
import MRTDCrypto
import MRTDSecureMessaging
import MRTDTestSupport
import Testing

@testable import VirtualChip

/// ICAO 9303-11 Appendix D (BAC, D.1–D.3) and D.4 (3DES secure messaging), played against the chip
/// with its random source fixed to the published RND.IC and K.IC.
@Suite struct BACWorkedExampleTests {
    // Appendix D values (ICAO 9303-11 Appendix D.3/D.4, transcribed in TestVectors/bac).
    static let rndIC = hex("4608F91988702212")
    static let kIC = hex("0B4F80323EB3191CB04970CB4052790B")
    static let getChallenge = "0084000008"
    static let getChallengeResponse = "4608F919887022129000"
    static let externalAuthenticate =
        "008200002872C29C2371CC9BDB65B779B8E8D37B29ECC154AA56A8799FAE2F498F76ED92F25F1448EEA8AD90A728"
    static let externalAuthenticateResponse =
        "46B9342A41396CD7386BF5803104D7CEDC122B9132139BAF2EEDC94EE178534F2F2D235D074D74499000"
    /// D.4: protected SELECT EF.COM, READ BINARY 4, READ BINARY 18 at offset 4.
    static let smSteps: [(command: String, response: String)] = [
        ("0CA4020C158709016375432908C044F68E08BF8B92D635FF24F800", "990290008E08FA855A5D4C50A8ED9000"),
        ("0CB000000D9701048E08ED6705417E96BA5500", "8709019FF0EC34F9922651990290008E08AD55CC17140B2DED9000"),
        (
            "0CB000040D9701128E082EA28A70F3C7B53500",
            "871901FB9235F4E4037F2327DCC8964F1F9B8C30F42C8E2FFF224A990290008E08C8B2787EAEA07D749000"
        ),
    ]

    static func chip(dateOfBirth: String = "690806") -> VirtualChip {
        let profile = TestProfiles.profile(
            documentNumber: "L898902C<", dateOfBirth: dateOfBirth, dateOfExpiry: "940623")
        return VirtualChip(profile: profile, random: FixedRandom([rndIC, kIC]))
    }

    @Test func mrzInformationAndKeySeed() {
        let profile = TestProfiles.profile(documentNumber: "L898902C", dateOfBirth: "690806", dateOfExpiry: "940623")
        #expect(String(decoding: ChipPasswords.mrzInformation(profile), as: UTF8.self) == "L898902C<369080619406236")
        #expect(hexString(ChipPasswords.bacKeySeed(profile)) == "239AB9CB282DAF66231DC5A4DF6BFBAE")
        // ICAO 9303-11 D.2: a document number longer than 9 characters is used in full.
        let long = TestProfiles.profile(documentNumber: "D23145890734", dateOfBirth: "340712", dateOfExpiry: "950712")
        #expect(String(decoding: ChipPasswords.mrzInformation(long), as: UTF8.self) == "D23145890734934071279507122")
    }

    @Test func reproducesAppendixD() {
        let chip = Self.chip()
        #expect(chip.send(CommandAPDU.selectApplication(MRTDApplication.lds1AID)).statusWord == .success)
        #expect(chip.send(hex: Self.getChallenge) == Self.getChallengeResponse)
        #expect(chip.send(hex: Self.externalAuthenticate) == Self.externalAuthenticateResponse)
        #expect(chip.snapshot.access == .bac)
        for step in Self.smSteps {
            #expect(chip.send(hex: step.command) == step.response)
        }
        #expect(chip.snapshot.secureMessagingActive)
    }

    /// Negative twin: one bit of M_IFD flipped → 6300, no session.
    @Test func flippedMACFailsAuthentication() {
        let chip = Self.chip()
        _ = chip.send(CommandAPDU.selectApplication(MRTDApplication.lds1AID))
        _ = chip.send(hex: Self.getChallenge)
        let command = flipBit(hex(Self.externalAuthenticate), at: 5 + 35)
        #expect(hexString(chip.process(command)) == "6300")
        #expect(!chip.snapshot.secureMessagingActive)
    }

    /// Wrong MRZ (another birth date): EXTERNAL AUTHENTICATE fails with 6300.
    @Test func wrongMRZFailsAuthentication() {
        let chip = Self.chip(dateOfBirth: "690807")
        _ = chip.send(hex: Self.getChallenge)
        #expect(chip.send(hex: Self.externalAuthenticate) == "6300")
        #expect(chip.snapshot.access == nil)
    }

    @Test func externalAuthenticateWithoutChallengeIsRefused() {
        let chip = Self.chip()
        #expect(chip.send(hex: Self.externalAuthenticate) == "6985")
    }

    /// D.4 negative twin: the protected SELECT with one MAC bit flipped → 6988, the session is dropped,
    /// and the next (correctly protected) command is refused too.
    @Test func badCommandMACDropsSession() {
        let chip = Self.chip()
        _ = chip.send(CommandAPDU.selectApplication(MRTDApplication.lds1AID))
        _ = chip.send(hex: Self.getChallenge)
        _ = chip.send(hex: Self.externalAuthenticate)
        let select = hex(Self.smSteps[0].command)
        #expect(hexString(chip.process(flipBit(select, at: select.count - 2))) == "6988")
        #expect(!chip.snapshot.secureMessagingActive)
        #expect(chip.snapshot.droppedSessions == 1)
        #expect(chip.send(hex: Self.smSteps[1].command) == "6988")
        // Without a session the LDS files are out of reach again.
        #expect(
            chip.send(CommandAPDU.readBinary(sfi: 0x1E, offset: 0, ne: 4)).statusWord == .securityStatusNotSatisfied)
    }

    /// A plain command after BAC drops the session (ICAO 9303-11 §9.8.6).
    @Test func plainCommandDropsSession() {
        let chip = Self.chip()
        _ = chip.send(CommandAPDU.selectApplication(MRTDApplication.lds1AID))
        _ = chip.send(hex: Self.getChallenge)
        _ = chip.send(hex: Self.externalAuthenticate)
        #expect(
            chip.send(CommandAPDU.readBinary(sfi: 0x1E, offset: 0, ne: 4)).statusWord == .securityStatusNotSatisfied)
        #expect(!chip.snapshot.secureMessagingActive)
        #expect(chip.send(hex: Self.smSteps[0].command) == "6988")
    }

    @Test func bacRefusedOnPACEOnlyChip() {
        let profile = TestProfiles.profile(supportsBAC: false)
        let chip = VirtualChip(profile: profile, random: FixedRandom([Self.rndIC]))
        _ = chip.send(hex: Self.getChallenge)
        #expect(chip.send(hex: Self.externalAuthenticate) == "6D00")
    }

    /// Round trip with random keys through the test terminal, then every LDS file reads back.
    @Test func randomRoundTrip() throws {
        let chip = VirtualChip(profile: TestProfiles.profile())
        var terminal = TestTerminal(chip: chip)
        #expect(terminal.plain(.selectApplication(MRTDApplication.lds1AID)).isSuccess)
        try terminal.bac(mrzInformation: "L898902C<369080619406236")
        let com = try terminal.secure(.readBinary(sfi: 0x1E, offset: 0, ne: 256))
        #expect(com.statusWord == .endOfFileReached)
        #expect(com.data == TestProfiles.com)
        let dg1 = try terminal.secure(.readBinary(sfi: 0x01, offset: 0, ne: TestProfiles.dg1.count))
        #expect(dg1.statusWord == .success && dg1.data == TestProfiles.dg1)
    }
}
