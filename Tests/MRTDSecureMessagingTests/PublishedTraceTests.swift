import ISO7816
import MRTDCrypto
import MRTDSecureMessaging
import MRTDTestSupport
import Testing

func keys(_ v: Vector, _ cipher: CipherAlgorithm) -> SessionKeys {
    SessionKeys(cipher: cipher, encryption: SecretBytes(v["ks_enc"]), mac: SecretBytes(v["ks_mac"]))
}

/// ICAO 9303-11 App. D.4 and AES traces, byte for byte, reader side and chip side.
@Suite struct PublishedTraceTests {
    /// App. D.4: every intermediate value of the three protected exchanges.
    @Test func appendixD4Intermediates() throws {
        let v = try Vector("sm/icao-9303-11-appD4-sm-3des.json")
        let kEnc = SecretBytes(v["ks_enc"])
        let kMac = SecretBytes(v["ks_mac"])
        for step in v.list("steps") {
            let plain = try CommandAPDU(bytes: step["unprotected_command"])
            #expect(
                Padding.pad([plain.cla | 0x0C, plain.ins, plain.p1, plain.p2], blockSize: 8)
                    == step["cmd_header_padded"])
            if step.fields["data_padded"] != nil {
                #expect(Padding.pad(plain.data, blockSize: 8) == step["data_padded"])
                #expect(try TripleDES.encryptCBC(key: kEnc, step["data_padded"]) == step["encrypted_data"])
            }
            #expect(try RetailMAC.mac(key: kMac, step["n"], padded: true) == step["cc"])
            #expect(try RetailMAC.mac(key: kMac, flipBit(step["n"], at: 9), padded: true) != step["cc"])
            #expect(step["n"] == Padding.pad(step["ssc"] + step["m"], blockSize: 8))
            let responseK =
                step.fields["response_k"] != nil ? step["response_k"] : step.nested("computed")["response_k"]
            #expect(try RetailMAC.mac(key: kMac, responseK, padded: true) == step["response_cc"])
        }
    }

    /// App. D.4: the reader wraps the plain commands into exactly the published APDUs and unwraps the answers.
    @Test func appendixD4ReaderSide() throws {
        let v = try Vector("sm/icao-9303-11-appD4-sm-3des.json")
        var session = SecureMessagingSession(keys: keys(v, .tripleDES), ssc: v["ssc_initial"])
        var content: [UInt8] = []
        for step in v.list("steps") {
            let protected = try session.protect(CommandAPDU(bytes: step["unprotected_command"]))
            #expect(protected.bytes == step["protected_command"])
            #expect(session.sendSequenceCounter == step["ssc"])
            let response = try session.unprotect(ResponseAPDU(bytes: step["protected_response"]))
            #expect(response.statusWord == .success)
            #expect(session.sendSequenceCounter == step["response_ssc"])
            if step.fields["decrypted_data"] != nil { #expect(response.data == step["decrypted_data"]) }
            content += response.data
        }
        #expect(content == v["ef_com"])
        #expect(session.sendSequenceCounter == v["ssc_final"])
        #expect(session.isDead == false)
    }

    /// App. D.4 from the chip's side: unwraps the published commands, wraps the plain answers into the published responses.
    @Test func appendixD4ChipSide() throws {
        let v = try Vector("sm/icao-9303-11-appD4-sm-3des.json")
        var chip = SecureMessagingSession(keys: keys(v, .tripleDES), ssc: v["ssc_initial"])
        for step in v.list("steps") {
            let plain = try CommandAPDU(bytes: step["unprotected_command"])
            let unwrapped = try chip.unprotectCommand(CommandAPDU(bytes: step["protected_command"]))
            #expect(unwrapped.bytes == plain.bytes)
            let data = step.fields["decrypted_data"] != nil ? step["decrypted_data"] : []
            let wrapped = try chip.protectResponse(ResponseAPDU(data: data, statusWord: .success))
            #expect(wrapped.bytes == step["protected_response"])
        }
        #expect(chip.sendSequenceCounter == v["ssc_final"])
    }

    /// Negative twins of D.4: a flipped response MAC bit, and a flipped cryptogram bit, each kill the session.
    @Test(arguments: [(1, 24), (2, 4)])
    func appendixD4CorruptedResponse(_ stepIndex: Int, _ byteIndex: Int) throws {
        let v = try Vector("sm/icao-9303-11-appD4-sm-3des.json")
        var session = SecureMessagingSession(keys: keys(v, .tripleDES), ssc: v["ssc_initial"])
        let steps = v.list("steps")
        for step in steps[..<stepIndex] {
            _ = try session.protect(CommandAPDU(bytes: step["unprotected_command"]))
            _ = try session.unprotect(ResponseAPDU(bytes: step["protected_response"]))
        }
        let step = steps[stepIndex]
        _ = try session.protect(CommandAPDU(bytes: step["unprotected_command"]))
        let corrupted = try ResponseAPDU(bytes: flipBit(step["protected_response"], at: byteIndex))
        let error = #expect(throws: SecureMessagingError.self) { try session.unprotect(corrupted) }
        #expect(error?.code == .macMismatch)
        #expect(session.isDead == true)
        let again = #expect(throws: SecureMessagingError.self) {
            try session.protect(CommandAPDU(bytes: step["unprotected_command"]))
        }
        #expect(again?.code == .sessionDead)
    }

    /// A corrupted command MAC is rejected on the chip side too.
    @Test func appendixD4CorruptedCommand() throws {
        let v = try Vector("sm/icao-9303-11-appD4-sm-3des.json")
        var chip = SecureMessagingSession(keys: keys(v, .tripleDES), ssc: v["ssc_initial"])
        let command = v.list("steps")[0]["protected_command"]
        let error = #expect(throws: SecureMessagingError.self) {
            try chip.unprotectCommand(CommandAPDU(bytes: flipBit(command, at: 20)))
        }
        #expect(error?.code == .macMismatch)
        #expect(chip.isDead == true)
    }

    /// INTERNAL AUTHENTICATE under 3DES SM (Le 256 → DO'97' 01 00; a long DO'87' with a two-byte length).
    @Test func activeAuthenticationTrace3DES() throws {
        let v = try Vector("sm/gmrtd-aa-3des-sm.json")
        var session = SecureMessagingSession(keys: keys(v, .tripleDES), ssc: v["ssc_initial"])
        let plain = CommandAPDU(ins: 0x88, p1: 0, p2: 0, data: hex("96302B0F3D7E7864"), ne: 256)
        #expect(try session.protect(plain).bytes == v["protected_command"])
        let response = try session.unprotect(ResponseAPDU(bytes: v["protected_response"]))
        #expect(response.statusWord == .success)
        #expect(response.data.count > 200)
        #expect(session.sendSequenceCounter == v["ssc_final"])

        var chip = SecureMessagingSession(keys: keys(v, .tripleDES), ssc: v["ssc_initial"])
        #expect(try chip.unprotectCommand(CommandAPDU(bytes: v["protected_command"])) == plain)
        #expect(try chip.protectResponse(response).bytes == v["protected_response"])
    }

    static let aesTraces: [(String, CipherAlgorithm, [String])] = [
        ("sm/gmrtd-aes256-efcom-trace.json", .aes256, ["00A4020C02011E", "00B0000004", "00B0000416"]),
        ("sm/gmrtd-icao-appI-cardsecurity-read.json", .aes128, ["00A4020C02011D", "00B0000004", "00B0000462"]),
    ]

    /// AES secure messaging traces: IV = E(KSenc, SSC), CMAC with a 16-byte SSC, both sides, byte for byte.
    @Test(arguments: aesTraces)
    func aesTrace(_ file: String, _ cipher: CipherAlgorithm, _ plainCommands: [String]) throws {
        let v = try Vector(file)
        let apdus = v.list("apdus")
        #expect(apdus.count == plainCommands.count)
        var reader = SecureMessagingSession(keys: keys(v, cipher), ssc: v["ssc_initial"])
        var chip = SecureMessagingSession(keys: keys(v, cipher), ssc: v["ssc_initial"])
        for (apdu, plainHex) in zip(apdus, plainCommands) {
            let plain = try CommandAPDU(bytes: hex(plainHex))
            let protected = try reader.protect(plain)
            #expect(protected.bytes == apdu["command"])
            #expect(try chip.unprotectCommand(protected) == plain)
            let response = try reader.unprotect(ResponseAPDU(bytes: apdu["response"]))
            #expect(response.statusWord == .success)
            if apdu.fields["decrypted"] != nil { #expect(response.data == apdu["decrypted"]) }
            #expect(try chip.protectResponse(response).bytes == apdu["response"])
        }
        #expect(reader.sendSequenceCounter == v["ssc_final"])
        #expect(chip.sendSequenceCounter == v["ssc_final"])

        // negative twin: the last response with one MAC bit flipped
        var twin = SecureMessagingSession(keys: keys(v, cipher), ssc: v["ssc_initial"])
        for (apdu, plainHex) in zip(apdus.dropLast(), plainCommands) {
            _ = try twin.protect(CommandAPDU(bytes: hex(plainHex)))
            _ = try twin.unprotect(ResponseAPDU(bytes: apdu["response"]))
        }
        _ = try twin.protect(CommandAPDU(bytes: hex(plainCommands.last!)))
        let bad = apdus.last!["response"]
        let error = #expect(throws: SecureMessagingError.self) {
            try twin.unprotect(ResponseAPDU(bytes: flipBit(bad, at: bad.count - 3)))
        }
        #expect(error?.code == .macMismatch)
        #expect(twin.isDead == true)
        #expect(throws: SecureMessagingError.self) { try twin.unprotect(ResponseAPDU(bytes: bad)) }
    }

    @Test func aes128ProtectedMSESetAT() throws {
        let v = try Vector("sm/gmrtd-aes128-mse-setat.json")
        var session = SecureMessagingSession(keys: keys(v, .aes128), ssc: v["ssc_before"])
        let protected = try session.protect(CommandAPDU(bytes: v["unprotected_command"]))
        #expect(protected.bytes == v["protected_command"])
        #expect(session.sendSequenceCounter == v["ssc_after"])
        var twin = SecureMessagingSession(keys: keys(v, .aes128), ssc: flipBit(v["ssc_before"], at: 15))
        #expect(try twin.protect(CommandAPDU(bytes: v["unprotected_command"])).bytes != v["protected_command"])
    }

    /// BSI EAC worked example: AES encryption with IV = E(KSenc, SSC) and the MAC over DO'99'.
    @Test(arguments: ["ecdh", "dh"])
    func bsiAESSteps(_ prefix: String) throws {
        let v = try Vector("sm/bsi-tr03110-eac-worked-example-aes-sm.json")
        let kEnc = SecretBytes(v["\(prefix)_ks_enc"])
        let kMac = SecretBytes(v["\(prefix)_ks_mac"])
        let iv = try AES.encryptECB(key: kEnc, v["\(prefix)_enc_ssc"])
        #expect(
            try AES.encryptCBC(key: kEnc, iv: iv, Padding.pad(v["\(prefix)_plain"], blockSize: 16))
                == v["\(prefix)_cipher"])
        let macInput = Padding.pad(v["\(prefix)_mac_ssc"] + v["\(prefix)_mac_input_data"], blockSize: 16)
        #expect(Array(try AESCMAC.mac(key: kMac, macInput).prefix(8)) == v["\(prefix)_mac"])
        #expect(Array(try AESCMAC.mac(key: kMac, flipBit(macInput, at: 15)).prefix(8)) != v["\(prefix)_mac"])

        // the same through a session: MSE:Set DST with the CAR at SSC 1, the 9000 answer at SSC 2
        var session = SecureMessagingSession(keys: SessionKeys(cipher: .aes128, encryption: kEnc, mac: kMac))
        let protected = try session.protect(CommandAPDU(ins: 0x22, p1: 0x81, p2: 0xB6, data: v["\(prefix)_plain"]))
        let cryptogram = v["\(prefix)_cipher"]
        #expect(
            Array(protected.data.prefix(3 + cryptogram.count)) == [0x87, UInt8(cryptogram.count + 1), 0x01] + cryptogram
        )
        let answer = ResponseAPDU(data: hex("99029000") + [0x8E, 0x08] + v["\(prefix)_mac"], sw: 0x9000)
        #expect(try session.unprotect(answer).statusWord == .success)
    }

    /// ICAO 9303-11 App. I.1: A_IC = E(KSenc, CA_IC) with IV = E(KSenc, FF..FF).
    @Test func paceCAMChipData() throws {
        let v = try Vector("sm/icao-9303-11-appI1-pace-cam.json")
        let k = keys(v, .aes128)
        #expect(try AES.encryptECB(key: k.encryption, [UInt8](repeating: 0xFF, count: 16)) == v["iv_for_a_ic"])
        let session = SecureMessagingSession(keys: k)
        #expect(try session.encryptCAMData(v["chip_auth_data_ca_ic"]) == v["encrypted_chip_auth_data_a_ic"])
        #expect(try session.decryptCAMData(v["encrypted_chip_auth_data_a_ic"]) == v["chip_auth_data_ca_ic"])
        #expect(
            (try? session.decryptCAMData(flipBit(v["encrypted_chip_auth_data_a_ic"], at: 47)))
                != v["chip_auth_data_ca_ic"])
        // the CAM step does not advance the SSC
        #expect(session.sendSequenceCounter == [UInt8](repeating: 0, count: 16))
        // session keys from K via the KDF (§9.7.1)
        let derived = SessionKeys.derive(sharedSecret: v["shared_secret_k"], cipher: .aes128)
        #expect(derived == k)
    }
}
