import ASN1TLV
import DocumentGenerator
import ISO7816
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging
import MRTDTestSupport
import Testing

@testable import VirtualChip

/// End to end over every built-in generated document: access control as EF.CardAccess offers it
/// (PACE, else BAC), every file read back byte for byte through secure messaging in short chunks,
/// Chip Authentication and Active Authentication as the profile's keys say.
@Suite struct GeneratedProfileTests {
    @Test(arguments: SpecimenGenerator.profileNames)
    func fullSession(_ name: String) throws {
        let document = try SpecimenGenerator.generate(named: name)
        let profile = document.profile
        let chip = VirtualChip(profile: profile)
        var terminal = TestTerminal(chip: chip)

        // Access control
        let infos = ChipSecurityInfos(profile: profile).paceInfos
        if let pace = document.spec.pace {
            let offered = SecurityInfoEncoder.paceOID(
                mapping: pace.mapping, keyAgreement: pace.keyAgreement, cipher: pace.cipher)
            #expect(infos.contains { $0.oid == offered && $0.parameterId == pace.parameterId })
            let password = HashAlgorithm.sha1.hash(ChipPasswords.mrzInformation(profile))
            let outcome = try terminal.pace(
                oid: offered.dotted, parameterId: pace.parameterId, password: password,
                reference: 1, sendParameterId: true)
            if pace.mapping == .chipAuthentication {
                guard case .ecdh(let curve, _, let staticPublic)? = profile.keys.chipAuthentication?.agreement,
                    let aIC = outcome.encryptedChipAuthenticationData, let mapIC = outcome.mapPublicIC
                else {
                    Issue.record("CAM data missing")
                    return
                }
                let iv = try AES.encryptECB(key: outcome.keys.encryption, [UInt8](repeating: 0xFF, count: 16))
                let caIC = try Padding.unpad(AES.decryptCBC(key: outcome.keys.encryption, iv: iv, aIC), blockSize: 16)
                #expect(try curve.multiply(staticPublic, by: caIC) == mapIC)
            }
            _ = try terminal.secure(.selectApplication(MRTDApplication.lds1AID))
        } else {
            #expect(infos.isEmpty)
            _ = terminal.plain(.selectApplication(MRTDApplication.lds1AID))
            try terminal.bac(mrzInformation: String(decoding: ChipPasswords.mrzInformation(profile), as: UTF8.self))
        }

        // Chip Authentication, then every LDS file under the new keys.
        if let ca = document.spec.chipAuthentication, let key = profile.keys.chipAuthentication {
            let terminalKey: TestTerminal.CAKey
            let chipPublic: [UInt8]
            let ecdh: Bool
            switch key.agreement {
            case .ecdh(let curve, _, let pub):
                terminalKey = .ecdh(curve)
                chipPublic = pub
                ecdh = true
            case .dh(let group, _, let pub):
                terminalKey = .dh(group)
                chipPublic = pub
                ecdh = false
            }
            let cipherArc: Int
            switch ca.cipher {
            case .tripleDES: cipherArc = 1
            case .aes128: cipherArc = 2
            case .aes192: cipherArc = 3
            case .aes256: cipherArc = 4
            }
            let oid = ca.cipher == .tripleDES ? nil : "0.4.0.127.0.7.2.2.3.\(ecdh ? 2 : 1).\(cipherArc)"
            try terminal.chipAuthentication(key: terminalKey, oid: oid, keyId: key.keyId)
            try terminal.finishChipAuthentication(key: terminalKey, chipStaticPublic: chipPublic)
            #expect(chip.snapshot.chipAuthenticated)
        }
        for (file, content) in profile.files.sorted(by: { $0.key < $1.key }) where !file.isInMasterFile {
            var read: [UInt8] = []
            while read.count < content.count {
                let r = try terminal.secure(.readBinary(sfi: file.sfi, offset: 0, ne: 1).withOffset(read.count))
                guard r.statusWord == .success || r.statusWord == .endOfFileReached, !r.data.isEmpty else {
                    Issue.record("\(file) at \(read.count): \(r.statusWord)")
                    break
                }
                if read.count > 0x7FFF {
                    read += try TLVParser.parse(r.data).expect(0x53).valueBytes
                } else {
                    read += r.data
                }
            }
            #expect(read == content, "\(file)")
        }

        // Active Authentication
        if let aa = profile.keys.activeAuthentication {
            let challenge = hex("0102030405060708")
            let r = try terminal.secure(.internalAuthenticate(challenge, ne: 256))
            #expect(r.statusWord == .success)
            switch aa.publicKey.kind {
            case .rsa:
                let f = try aa.publicKey.rsaPublicOperation(r.data)
                #expect(f.first == 0x6A && f.last == 0xBC)
                let h = Array(f.dropLast().suffix(20))
                #expect(HashAlgorithm.sha1.hash(Array(f.dropFirst().dropLast(21)) + challenge) == h)
            case .ec:
                guard case .ecdsa(_, let hash)? = document.spec.activeAuthentication else {
                    Issue.record("spec")
                    return
                }
                #expect(try aa.publicKey.verify(signature: r.data, message: challenge, algorithm: .ecdsaPlain(hash)))
            }
        }
    }
}

extension CommandAPDU {
    /// The same READ BINARY continued at `offset`: by SFI for the first chunk, then by offset in
    /// P1-P2 (current EF) up to 32767 and odd INS beyond (short chunks of 200 bytes).
    fileprivate func withOffset(_ offset: Int) -> CommandAPDU {
        if offset == 0 { return CommandAPDU(ins: 0xB0, p1: p1, p2: 0, ne: 200) }
        if offset <= 0x7FFF { return .readBinary(offset: offset, ne: 200) }
        return .readBinaryOdd(offset: offset, ne: 200)
    }
}
