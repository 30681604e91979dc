import ASN1TLV
import DocumentGenerator
import ISO7816
import MRTDCrypto
import MRTDDocument
import MRTDTestSupport

@testable import VirtualChip

/// Minimal document profiles built in the tests (independent of the document generator).
enum TestProfiles {
    static let paceOIDPrefix = "0.4.0.127.0.7.2.2.4"

    /// id-PACE-<mapping>-<cipher> dotted.
    static func paceOID(mapping: Int, cipher: Int) -> String { "\(paceOIDPrefix).\(mapping).\(cipher)" }

    /// EF.CardAccess = SET OF PACEInfo { OID, version 2, parameterId }.
    static func cardAccess(_ infos: [(oid: String, parameterId: Int?)]) -> [UInt8] {
        DER.set(
            infos.map { info in
                var elements = [DER.objectIdentifier(info.oid), DER.integer(2)]
                if let id = info.parameterId { elements.append(DER.integer(id)) }
                return DER.sequence(elements)
            })
    }

    /// PACEDomainParameterInfo (ICAO 9303-11 §9.2.2) with explicit ECParameters (X9.62, prime field).
    static func paceDomainParameterInfo(family: String, curve: ECCurve, parameterId: Int) -> [UInt8] {
        let ecParameters = DER.sequence([
            DER.integer(1),
            DER.sequence([DER.objectIdentifier("1.2.840.10045.1.1"), DER.integer(unsigned: curve.p)]),
            DER.sequence([DER.octetString(curve.a), DER.octetString(curve.b)]),
            DER.octetString(curve.generator),
            DER.integer(unsigned: curve.order),
            DER.integer(unsigned: curve.cofactor),
        ])
        let algorithm = DER.sequence([DER.objectIdentifier("1.2.840.10045.2.1"), ecParameters])
        return DER.sequence([DER.objectIdentifier(family), algorithm, DER.integer(parameterId)])
    }

    /// PACEDomainParameterInfo with X9.42 DH domain parameters (dhpublicnumber: p, g, q).
    static func paceDomainParameterInfo(family: String, group: DHGroup, parameterId: Int) -> [UInt8] {
        let parameters = DER.sequence([
            DER.integer(unsigned: group.p), DER.integer(unsigned: group.g),
            DER.integer(unsigned: group.q!),
        ])
        let algorithm = DER.sequence([DER.objectIdentifier("1.2.840.10046.2.1"), parameters])
        return DER.sequence([DER.objectIdentifier(family), algorithm, DER.integer(parameterId)])
    }

    /// The EF.COM of ICAO 9303-11 D.4 (LDS 1.7, Unicode 4.0.0, DG1 DG2).
    static let com = hex("60145F0104303130365F36063034303030305C026175")
    /// DG1 of the Utopia TD3 specimen (ICAO 9303-4 App. B, as transcribed in the shared vectors).
    static let dg1 = hex(
        "615B5F1F58503C55544F4552494B53534F4E3C3C414E4E413C4D415249413C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C4C38393839303243333655544F3734303831323246313230343135395A45313834323236423C3C3C3C3C3130"
    )

    /// A synthetic DG2-shaped file of `size` bytes: '75' with a long-form length and a counting pattern.
    static func bigFile(tag: UInt8 = 0x75, size: Int) -> [UInt8] {
        let valueLength = size - 4
        var out: [UInt8] = [tag, 0x82, UInt8(valueLength >> 8), UInt8(valueLength & 0xFF)]
        out += (0..<valueLength).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        return out
    }

    /// DG14 with an ActiveAuthenticationInfo naming `signatureAlgorithm`.
    static func dg14(activeAuthenticationAlgorithm oid: String) -> [UInt8] {
        let info = DER.sequence([DER.objectIdentifier("2.23.136.1.1.5"), DER.integer(1), DER.objectIdentifier(oid)])
        return TLVWriter.encode(0x6E, DER.set([info]))
    }

    static func profile(
        name: String = "test",
        documentNumber: String = "L898902C<", dateOfBirth: String = "690806", dateOfExpiry: String = "940623",
        can: String = "123456",
        cardAccess: [UInt8]? = nil,
        extraFiles: [LDSFile: [UInt8]] = [:],
        supportsBAC: Bool = true,
        keys: ChipKeys = ChipKeys(),
        link: LinkBehaviour = LinkBehaviour()
    ) -> DocumentProfile {
        var files: [LDSFile: [UInt8]] = [.com: com, .dg1: dg1, .sod: [0x77, 0x03, 0x30, 0x01, 0x00]]
        if let cardAccess { files[.cardAccess] = cardAccess }
        files.merge(extraFiles) { $1 }
        return DocumentProfile(
            name: name, files: files, documentNumber: documentNumber, dateOfBirth: dateOfBirth,
            dateOfExpiry: dateOfExpiry, can: can, mrz: "", supportsBAC: supportsBAC,
            keys: keys, link: link)
    }
}

extension VirtualChip {
    /// Sends a command and parses the answer.
    func send(_ command: CommandAPDU) -> ResponseAPDU {
        try! ResponseAPDU(bytes: process(command.bytes))
    }

    /// Sends raw hex and returns the answer as hex.
    func send(hex command: String) -> String {
        hexString(process(hex(command)))
    }
}
