import ASN1TLV
import MRTDCrypto
import MRTDDocument
import MRTDTestSupport
import Testing

@testable import MRTDTrust

/// RFC 5652 SignedData reading over the specimen SODs and an EF.CardSecurity sample.
struct CMSTests {
    @Test(.sharedFixtures, arguments: Specimen.all)
    func readsSpecimenSOD(_ s: Specimen) throws {
        let sod = try s.sod()
        let sd = try CMSSignedData(signedData: sod.signedData)
        #expect(sd.version == 3)
        #expect(sd.eContentType == TrustOID.ldsSecurityObject)
        #expect(sd.eContent == sod.eContent)
        #expect(sd.signerInfos.count == 1)
        let si = try #require(sd.signerInfos.first)
        guard case .issuerAndSerialNumber(_, let serial) = si.sid else {
            Issue.record("expected issuerAndSerialNumber")
            return
        }
        #expect(Hex.encode(serial) == s.expectedDSSerial)
        let embedded = sd.certificates.filter { si.sid.matches($0) }
        #expect(embedded.count == 1)
        #expect(
            try si.signatureAlgorithm.signatureAlgorithm(
                digest: si.digestAlgorithm.hashAlgorithm(step: .cms), step: .cms
            ).reportName == s.expectedSignature)
        // Signed attributes as read, re-tagged 0x31: every byte but the first is the one read.
        let encoded = try #require(si.signedAttributesEncoded)
        let retagged = try #require(si.signedAttributesForSignature)
        #expect(encoded[0] == 0xA0 && retagged[0] == 0x31)
        #expect(Array(encoded.dropFirst()) == Array(retagged.dropFirst()))
        let sodBytes = try Fixtures.bytes(s.sodFile)
        #expect(firstIndex(of: encoded, in: sodBytes) != nil)
        // The messageDigest attribute is the hash of eContent (intermediate value of verification).
        let md = try #require(si.signedAttribute(TrustOID.messageDigestAttribute).first?.values.first)
            .octetStringValue()
        let h = try si.digestAlgorithm.hashAlgorithm(step: .cms)
        #expect(md == h.hash(sd.eContent!))
        #expect(md != h.hash(flipBit(sd.eContent!, at: 10)))
    }

    @Test(.sharedFixtures) func contentInfoWithEFSODWrapperIsAccepted() throws {
        let s = Specimen.all[0]
        let a = try CMSSignedData(contentInfo: try Fixtures.bytes(s.sodFile))
        let b = try CMSSignedData(signedData: try s.sod().signedData)
        #expect(a == b)
    }

    @Test(.sharedFixtures) func cardSecuritySampleReads() throws {
        let sd = try CMSSignedData(contentInfo: try Fixtures.bytes(Fixtures.cardSecurity))
        #expect(sd.eContentType == TrustOID.bsiSecurityObject)
        #expect(sd.certificates.count == 1)
        #expect(sd.signerInfos.first.map { si in sd.certificates.contains { si.sid.matches($0) } } == true)
    }

    @Test func contentTypeMismatchIsRefusedBeforeAnySignatureWork() throws {
        // A SignedData whose contentType attribute names another type than eContentType.
        let eContent: [UInt8] = Array("hello".utf8)
        let attrs = DER.implicit(
            0,
            DER.sequence(
                DER.objectIdentifier("1.2.840.113549.1.9.3"), DER.set([DER.objectIdentifier("2.23.136.1.1.2")]))
                + DER.sequence(
                    DER.objectIdentifier("1.2.840.113549.1.9.4"),
                    DER.set([DER.octetString(HashAlgorithm.sha256.hash(eContent))])), constructed: true)
        let si = DER.sequence(
            DER.integer(3), DER.implicit(0, [1, 2, 3]), DER.sequence(DER.objectIdentifier("2.16.840.1.101.3.4.2.1")),
            attrs, DER.sequence(DER.objectIdentifier("1.2.840.10045.4.3.2")), DER.octetString([0x30, 0x00]))
        let sd = DER.sequence(
            DER.integer(3), DER.set([DER.sequence(DER.objectIdentifier("2.16.840.1.101.3.4.2.1"))]),
            DER.sequence(DER.objectIdentifier("2.23.136.1.1.1"), DER.explicit(0, DER.octetString(eContent))),
            DER.set([si]))
        let ci = DER.sequence(DER.objectIdentifier("1.2.840.113549.1.7.2"), DER.explicit(0, sd))
        let parsed = try CMSSignedData(contentInfo: ci)
        #expect(parsed.signerInfos[0].sid == .subjectKeyIdentifier([1, 2, 3]))
        do {
            _ = try parsed.verifySigner()
            Issue.record("verification should fail")
        } catch {
            #expect(error.code == .attributeMismatch)
        }
    }
}
