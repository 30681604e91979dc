import ASN1TLV
import MRTDTestSupport
import Testing

@testable import MRTDTrust

/// RFC 5280 §5 CRL model over the real Colombian CSCA CRL (values from `openssl crl -text`).
struct CRLTests {
    @Test(.sharedFixtures) func readsColombianCRL() throws {
        let crl = try CertificateRevocationList(der: try Fixtures.bytes(Fixtures.colCRL))
        #expect(crl.version == 2)
        #expect(crl.issuer.country == "CO")
        #expect(crl.issuer.commonName == "Government of Colombia CSCA")
        #expect(crl.thisUpdate == ASN1Time(year: 2020, month: 5, day: 8, hour: 12, minute: 38, second: 29))
        #expect(crl.nextUpdate == ASN1Time(year: 2020, month: 8, day: 6, hour: 12, minute: 38, second: 29))
        #expect(crl.revokedCertificates.count == 15)
        #expect(crl.revokedCertificates.first?.serialNumber == hex("55780B03"))
        #expect(crl.decoded.crlNumber == hex("037B"))  // 891
        #expect(crl.authorityKeyIdentifier == hex("8D205418D2AA9237DCB3072520176B4D49F2A6D1"))
        #expect(try crl.signatureAlgorithm.signatureAlgorithm(step: .crl) == .rsaPKCS1v15(.sha256))
    }

    @Test(.sharedFixtures) func truncatedCRLIsRefused() throws {
        let der = try Fixtures.bytes(Fixtures.colCRL)
        #expect(throws: TrustError.self) { try CertificateRevocationList(der: Array(der.dropLast(3))) }
    }
}
