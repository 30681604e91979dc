import ASN1TLV
import MRTDDocument
import MRTDTestSupport
import Testing

struct SODFileTests {
    struct Specimen: Sendable, CustomStringConvertible {
        let path: String
        let hashAlgorithm: String
        let dataGroups: [Int]
        var description: String { path }
    }

    // Expected values cross-checked with `openssl asn1parse -strparse` on the eContent.
    static let specimens: [Specimen] = [
        Specimen(path: "specimens/bsi2008/EF_SOD.bin", hashAlgorithm: "SHA-1", dataGroups: [1, 2, 3, 14]),
        Specimen(path: "specimens/nl-2006/ef011D.bin", hashAlgorithm: "SHA-256", dataGroups: [1, 2, 15]),
        Specimen(path: "specimens/bsi-tr03105-5/EF_SOD.bin", hashAlgorithm: "SHA-256", dataGroups: [1, 2, 3, 4, 14]),
    ]

    @Test(.sharedFixtures, arguments: specimens)
    func parsesSpecimen(_ s: Specimen) throws {
        let bytes = try Fixtures.bytes(s.path)
        let sod = try SODFile(bytes: bytes)
        #expect(sod.raw == bytes)
        #expect(sod.eContentType == LDSSecurityObject.contentType)
        #expect(sod.signedData.tag == 0x30)
        // The SignedData bytes are a slice of the file, not a re-encoding.
        let sd = sod.signedDataBytes
        #expect(bytes.indices.contains(sod.signedData.encoded.startIndex))
        #expect(Array(bytes[sod.signedData.encoded.startIndex..<(sod.signedData.encoded.startIndex + sd.count)]) == sd)
        #expect(sod.ldsSecurityObject.hashAlgorithmName == s.hashAlgorithm)
        #expect(sod.ldsSecurityObject.dataGroupNumbers.sorted() == s.dataGroups)
        let size = DigestAlgorithm.outputSize(of: sod.ldsSecurityObject.hashAlgorithm)
        for (_, h) in sod.ldsSecurityObject.dataGroupHashes { #expect(h.count == size) }
        #expect(sod.signerInfos.count == 1)
        #expect(sod.certificates.count >= 1)
        #expect(sod.ldsSecurityObject.raw == sod.eContent)
    }

    /// A hand-built BER EF.SOD as found in the wild: indefinite lengths at every constructed level and the
    /// eContent as a constructed, indefinite-length OCTET STRING in two segments; LDSSecurityObject v1.
    static func berSOD(lso: [UInt8]) -> [UInt8] {
        func indef(_ tag: [UInt8], _ parts: [UInt8]...) -> [UInt8] { tag + [0x80] + parts.flatMap { $0 } + [0, 0] }
        let half = lso.count / 2
        let eContent = indef([0x24], DER.octetString(Array(lso[..<half])), DER.octetString(Array(lso[half...])))
        let encap = indef([0x30], DER.objectIdentifier("2.23.136.1.1.1"), indef([0xA0], eContent))
        let signedData = indef(
            [0x30], DER.integer(3), DER.set([DER.sequence(DER.objectIdentifier("2.16.840.1.101.3.4.2.1"))]),
            encap, indef([0xA0], DER.sequence(DER.integer(1))), DER.set([DER.sequence(DER.integer(1))]))
        let contentInfo = indef([0x30], DER.objectIdentifier("1.2.840.113549.1.7.2"), indef([0xA0], signedData))
        return indef([0x77], contentInfo)
    }

    static func lso(version: Int = 1, withVersionInfo: Bool = true) -> [UInt8] {
        var parts = [
            DER.integer(version), DER.sequence(DER.objectIdentifier("2.16.840.1.101.3.4.2.1"), DER.null()),
            DER.sequence(
                [1, 2, 11].map {
                    DER.sequence(DER.integer($0), DER.octetString([UInt8](repeating: UInt8($0), count: 32)))
                }),
        ]
        if withVersionInfo { parts.append(DER.sequence(DER.printableString("0108"), DER.printableString("040000"))) }
        return DER.sequence(parts)
    }

    @Test func berIndefiniteLengthSOD() throws {
        let lso = Self.lso()
        let bytes = Self.berSOD(lso: lso)
        let sod = try SODFile(bytes: bytes)
        #expect(sod.signedData.isIndefiniteLength)
        #expect(sod.eContent == lso)
        #expect(sod.signedDataVersion == 3)
        #expect(sod.digestAlgorithms == [DigestAlgorithm.sha256])
        #expect(sod.certificates.count == 1 && sod.signerInfos.count == 1)
        let o = sod.ldsSecurityObject
        #expect(o.version == 1 && o.ldsVersion == "0108" && o.unicodeVersion == "040000")
        #expect(o.dataGroupNumbers == [1, 2, 11])
        #expect(o.hash(of: .dg11) == [UInt8](repeating: 11, count: 32))
        #expect(o.hashAlgorithmParameters == [0x05, 0x00])
    }

    @Test func versionInfoRequiresV1() {
        #expect(throws: LDSParseError.self) {
            try LDSSecurityObject(bytes: Self.lso(version: 0, withVersionInfo: true))
        }
        #expect(throws: LDSParseError.self) {
            try LDSSecurityObject(bytes: Self.lso(version: 2, withVersionInfo: false))
        }
        let v0 = try? LDSSecurityObject(bytes: Self.lso(version: 0, withVersionInfo: false))
        #expect(v0?.ldsVersion == nil && v0?.version == 0)
    }

    @Test func wrongContentTypeAndMissingEOC() throws {
        var bytes = Self.berSOD(lso: Self.lso())
        // Drop the final end-of-contents octets: a truncated file.
        bytes.removeLast(2)
        let e = #expect(throws: LDSParseError.self) { try SODFile(bytes: bytes) }
        #expect(e?.file == .sod && e?.code == .malformedTLV)
        // eContentType 2.23.136.1.1.1 → 2.23.136.1.1.2: not an LDSSecurityObject.
        var other = Self.berSOD(lso: Self.lso())
        let oid = DER.objectIdentifier("2.23.136.1.1.1")
        let at = try #require((0...(other.count - oid.count)).first { Array(other[$0..<($0 + oid.count)]) == oid })
        other[at + oid.count - 1] = 2
        let e2 = #expect(throws: LDSParseError.self) { try SODFile(bytes: other) }
        #expect(e2?.code == .unsupported && e2?.offset == at)
    }
}
