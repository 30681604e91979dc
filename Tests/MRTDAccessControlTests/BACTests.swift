import ASN1TLV
import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDTestSupport
import Testing

/// BAC — ICAO 9303-11 Appendix D.1–D.3 (protocol §4.3, key derivation §9.7.1–§9.7.2).
@Suite struct BACTests {
    static let file = "bac/icao-9303-11-appD-bac.json"

    func key(_ v: Vector) throws -> MRZKey {
        try MRZKey(
            documentNumber: v.string("mrz_document_number"), dateOfBirth: v.string("mrz_date_of_birth"),
            dateOfExpiry: v.string("mrz_date_of_expiry"))
    }

    @Test func keyDerivationD2() throws {
        let v = try Vector(Self.file)
        let k = try key(v)
        #expect(k.mrzInformation == v.string("mrz_information_ascii"))
        #expect(k.sha1.bytes == v.bytes("sha1_mrz_information"))
        let keys = BAC.deriveKeys(k)
        #expect(keys.keySeed.bytes == v.bytes("kseed"))
        #expect(keys.encryption.bytes == v.bytes("kenc"))
        #expect(keys.mac.bytes == v.bytes("kmac"))
        #expect("\(k)" == "MRZKey(redacted)")
    }

    @Test func authenticationD3() throws {
        let v = try Vector(Self.file)
        let keys = BAC.deriveKeys(try key(v))
        let c = try BAC.terminalCryptogram(
            rndIC: v.bytes("rnd_ic"), rndIFD: v.bytes("rnd_ifd"), kIFD: v.bytes("k_ifd"), keys: keys)
        #expect(c.s.bytes == v.bytes("s"))
        #expect(c.eIFD == v.bytes("e_ifd"))
        #expect(c.mIFD == v.bytes("m_ifd"))
        #expect(c.commandData == v.bytes("external_authenticate_cmd_data"))
        let chip = try BAC.processChipResponse(
            v.bytes("e_ic") + v.bytes("m_ic"), rndIC: v.bytes("rnd_ic"),
            rndIFD: v.bytes("rnd_ifd"), keys: keys)
        #expect(chip.r.bytes == v.bytes("r"))
        #expect(chip.kIC.bytes == v.bytes("k_ic"))
        let r = BAC.sessionKeys(
            kIFD: v.bytes("k_ifd"), kIC: chip.kIC.bytes, rndIC: v.bytes("rnd_ic"), rndIFD: v.bytes("rnd_ifd"))
        #expect(r.keySeed.bytes == v.bytes("ks_seed"))
        #expect(r.sessionKeys.encryption.bytes == v.bytes("ks_enc"))
        #expect(r.sessionKeys.mac.bytes == v.bytes("ks_mac"))
        #expect(r.ssc.bytes == v.bytes("ssc"))
    }

    /// The whole exchange replayed byte for byte.
    @Test func replayD3() async throws {
        let v = try Vector(Self.file)
        let transport = ScriptedTransport(hexPairs: [
            (v.string("get_challenge_command"), v.string("get_challenge_response")),
            (v.string("external_authenticate_command"), v.string("external_authenticate_response")),
        ])
        let r = try await BAC.perform(
            transport: transport, key: try key(v), random: FixedRandom([v.bytes("rnd_ifd"), v.bytes("k_ifd")]))
        #expect(transport.isFinished)
        #expect(r.sessionKeys.encryption.bytes == v.bytes("ks_enc"))
        #expect(r.sessionKeys.mac.bytes == v.bytes("ks_mac"))
        #expect(r.ssc.bytes == v.bytes("ssc"))
    }

    /// Negative twin: one bit of the chip's MAC flipped → EXTERNAL AUTHENTICATE fails with a MAC mismatch.
    @Test(arguments: [0, 32, 39]) func flippedChipCryptogram(byte: Int) async throws {
        let v = try Vector(Self.file)
        let resp = hexString(flipBit(v.bytes("external_authenticate_response"), at: byte))
        let transport = ScriptedTransport(hexPairs: [
            (v.string("get_challenge_command"), v.string("get_challenge_response")),
            (v.string("external_authenticate_command"), resp),
        ])
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await BAC.perform(
                transport: transport, key: try key(v), random: FixedRandom([v.bytes("rnd_ifd"), v.bytes("k_ifd")]))
        }
        #expect(e?.step == "EXTERNAL AUTHENTICATE")
        #expect(e?.code == .wrongPassword)
        #expect(e?.reason.contains("MAC mismatch") == true)
    }

    /// A wrong MRZ: the chip answers EXTERNAL AUTHENTICATE with 6300.
    @Test func wrongMRZ() async throws {
        let v = try Vector(Self.file)
        let transport = ResponderTransport([v.string("get_challenge_response"), "6300"])
        let wrong = try MRZKey(documentNumber: "L898902C<", dateOfBirth: "690807", dateOfExpiry: "940623")
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await BAC.perform(
                transport: transport, key: wrong, random: FixedRandom([v.bytes("rnd_ifd"), v.bytes("k_ifd")]))
        }
        #expect(e?.step == "EXTERNAL AUTHENTICATE")
        #expect(e?.code == .wrongPassword)
        #expect(e?.statusWord == StatusWord(rawValue: 0x6300))
        // The command differs from the published one because the key does.
        #expect(transport.commands.last != v.bytes("external_authenticate_command"))
        #expect(!"\(e!)".contains("690807"))
    }

    /// A wrong MRZ against a chip that answers with its (right-key) cryptogram: the MAC does not verify.
    @Test func wrongMRZMacMismatch() async throws {
        let v = try Vector(Self.file)
        let transport = ResponderTransport([
            v.string("get_challenge_response"), v.string("external_authenticate_response"),
        ])
        let wrong = try MRZKey(documentNumber: "L898902C<", dateOfBirth: "690806", dateOfExpiry: "940624")
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await BAC.perform(
                transport: transport, key: wrong, random: FixedRandom([v.bytes("rnd_ifd"), v.bytes("k_ifd")]))
        }
        #expect(e?.code == .wrongPassword)
        #expect(e?.step == "EXTERNAL AUTHENTICATE")
    }

    @Test func getChallengeRefused() async throws {
        let transport = ResponderTransport(["6D00"])
        let e = await #expect(throws: AccessControlError.self) {
            _ = try await BAC.perform(
                transport: transport,
                key: try MRZKey(documentNumber: "L898902C", dateOfBirth: "690806", dateOfExpiry: "940623"),
                random: FixedRandom([]))
        }
        #expect(e?.step == "GET CHALLENGE")
        #expect(e?.code == .chipRejected)
    }
}

/// MRZ_information (9303-11 §9.7.2; Appendix D.2 long document numbers).
@Suite struct MRZKeyTests {
    @Test func longDocumentNumberD2() throws {
        let v = try Vector("bac/icao-9303-11-appD2-long-document-number.json")
        let td1 = try MRZKey(mrz: v.string("td1_line1") + v.string("td1_line2") + v.string("td1_line3"))
        #expect(td1.documentNumber == v.string("document_number"))
        #expect(td1.mrzInformation == v.string("mrz_information"))
        let td2 = try MRZKey(mrz: v.string("td2_line1") + "\n" + v.string("td2_line2"))
        #expect(td2.mrzInformation == v.string("mrz_information"))
        let direct = try MRZKey(
            documentNumber: v.string("document_number"), dateOfBirth: "340712", dateOfExpiry: "950712")
        #expect(direct.mrzInformation == v.string("mrz_information"))
        let td3 = try MRZKey(mrz: v.string("td3_line1") + v.string("td3_line2"))
        #expect(td3.mrzInformation == v.string("td3_mrz_information"))
    }

    @Test func utopiaSpecimens() throws {
        let v = try Vector("bac/utopia-specimens.json")
        #expect(
            try MRZKey(mrz: v.string("td3_line1") + v.string("td3_line2")).mrzInformation
                == v.string("td3_mrz_information"))
        #expect(
            try MRZKey(mrz: v.string("td1_line1") + v.string("td1_line2") + v.string("td1_line3")).mrzInformation
                == v.string("td1_mrz_information"))
        #expect(
            try MRZKey(mrz: v.string("td2_line1") + v.string("td2_line2")).mrzInformation
                == v.string("td2_mrz_information"))
    }

    /// Negative twin: a mistyped check digit is refused before anything is sent.
    @Test func badCheckDigit() throws {
        let v = try Vector("bac/utopia-specimens.json")
        var l2 = Array(v.string("td3_line2"))
        l2[9] = l2[9] == "7" ? "8" : "7"
        let e = #expect(throws: AccessControlError.self) { try MRZKey(mrz: v.string("td3_line1") + String(l2)) }
        #expect(e?.code == .invalidInput)
        #expect(e?.reason.contains("document number") == true)
    }

    @Test func badFields() {
        #expect(throws: AccessControlError.self) {
            try MRZKey(documentNumber: "AB-12", dateOfBirth: "690806", dateOfExpiry: "940623")
        }
        #expect(throws: AccessControlError.self) {
            try MRZKey(documentNumber: "L898902C", dateOfBirth: "6908", dateOfExpiry: "940623")
        }
    }

    @Test func passwordBytes() throws {
        #expect(AccessKey.can("123456").passwordBytes.bytes == Array("123456".utf8))
        #expect(AccessKey.can("123456").passwordType.rawValue == 2)
        #expect(AccessKey.pin("1").passwordType.rawValue == 3)
        #expect(AccessKey.puk("1").passwordType.rawValue == 4)
        #expect("\(AccessKey.can("123456"))" == "AccessKey(CAN, redacted)")
    }
}
