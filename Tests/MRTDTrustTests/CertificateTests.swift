import ASN1TLV
import MRTDCrypto
import MRTDTestSupport
import Testing

@testable import MRTDTrust

/// X.509 model (RFC 5280 §4.1) over real CSCA certificates. Expected values were read with
/// `openssl x509 -text` from the same files.
struct CertificateTests {
    struct Expectation: Sendable, CustomStringConvertible {
        let file: String
        let subject: String
        let country: String
        let serialHex: String
        let notBefore: ASN1Time
        let notAfter: ASN1Time
        let algorithm: SignatureAlgorithm
        var description: String { file }
    }

    static let roots: [Expectation] = [
        Expectation(
            file: Fixtures.nlRoot,
            subject: "serialNumber=7, CN=CSCA NL, OU=Kingdom of the Netherlands, O=Kingdom of the Netherlands, C=NL",
            country: "NL", serialHex: "026FE53B",
            notBefore: ASN1Time(year: 2024, month: 6, day: 21), notAfter: ASN1Time(year: 2037, month: 6, day: 30),
            algorithm: .rsaPKCS1v15(.sha256))
    ]

    @Test(.sharedFixtures, arguments: roots)
    func readsRootCertificate(_ e: Expectation) throws {
        let c = try Certificate(der: try Fixtures.bytes(e.file))
        #expect(c.version == 3)
        #expect(c.subject.description == e.subject)
        #expect(c.subject.country == e.country)
        #expect(c.serialHex == e.serialHex)
        #expect(c.notBefore == e.notBefore)
        #expect(c.notAfter == e.notAfter)
        #expect(try c.cryptoSignatureAlgorithm() == e.algorithm)
        #expect(c.isCA)
        #expect(c.isSelfIssued)
        #expect(c.decoded.keyUsage?.contains(.keyCertSign) == true)
        #expect(c.unhandledCriticalExtensions.isEmpty)
        // The signed bytes are the TBSCertificate exactly as read: a prefix-position slice of the input.
        let der = try Fixtures.bytes(e.file)
        #expect(der.count > c.tbsCertificate.count)
        #expect(Array(der[4..<(4 + c.tbsCertificate.count)]) == c.tbsCertificate)
    }

    @Test(.sharedFixtures) func germanRootHasExplicitBrainpoolParametersAndExtensions() throws {
        let c = try Certificate(der: try Fixtures.bytes(Fixtures.deRoot))
        #expect(c.subject.country == "DE")
        #expect(c.subject.commonName == "csca-germany")
        #expect(c.isCA)
        #expect(c.decoded.basicConstraints?.pathLength == 0)
        #expect(c.decoded.privateKeyUsagePeriod != nil)
        #expect(c.subjectKeyIdentifier != nil)
        // Explicit ECParameters (a SEQUENCE, not a named-curve OID) in the SPKI algorithm.
        let spki = try TLVParser.parse(c.subjectPublicKeyInfo)
        #expect(spki.children[0].children[1].tag == 0x30)
    }

    @Test func canonicalNamesIgnoreStringTypeCaseAndSpaces() throws {
        let a = try DistinguishedName(
            encoded: DER.sequence([
                DER.set([DER.sequence(DER.objectIdentifier("2.5.4.6"), DER.printableString("DE"))]),
                DER.set([DER.sequence(DER.objectIdentifier("2.5.4.3"), DER.printableString("CSCA  Germany "))]),
            ]))
        let b = try DistinguishedName(
            encoded: DER.sequence([
                DER.set([DER.sequence(DER.objectIdentifier("2.5.4.6"), DER.utf8String("de"))]),
                DER.set([DER.sequence(DER.objectIdentifier("2.5.4.3"), DER.utf8String("csca germany"))]),
            ]))
        let c = try DistinguishedName(
            encoded: DER.sequence([
                DER.set([DER.sequence(DER.objectIdentifier("2.5.4.6"), DER.utf8String("DE"))]),
                DER.set([DER.sequence(DER.objectIdentifier("2.5.4.3"), DER.utf8String("csca germanz"))]),
            ]))
        #expect(a == b)
        #expect(a != c)
        #expect(a.country == "DE")
    }

    @Test(.sharedFixtures) func mismatchedInnerSignatureAlgorithmIsRefused() throws {
        var der = try Fixtures.bytes(Fixtures.nlRoot)
        // sha256WithRSAEncryption (…01 01 0B) in TBSCertificate.signature → sha384 (…0C); the outer one stays.
        let oid: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B]
        let i = try #require(firstIndex(of: oid, in: der))
        der[i + oid.count - 1] = 0x0C
        #expect(throws: TrustError.self) { try Certificate(der: der) }
    }

    @Test func signatureAlgorithmMapping() throws {
        let pss = DER.sequence(
            DER.explicit(0, DER.sequence(DER.objectIdentifier("2.16.840.1.101.3.4.2.2"))),
            DER.explicit(
                1,
                DER.sequence(
                    DER.objectIdentifier("1.2.840.113549.1.1.8"),
                    DER.sequence(DER.objectIdentifier("2.16.840.1.101.3.4.2.2")))),
            DER.explicit(2, DER.integer(48)))
        let cases: [(AlgorithmIdentifier, SignatureAlgorithm)] = [
            (AlgorithmIdentifier(oid: "1.2.840.113549.1.1.5"), .rsaPKCS1v15(.sha1)),
            (AlgorithmIdentifier(oid: "1.2.840.113549.1.1.14"), .rsaPKCS1v15(.sha224)),
            (AlgorithmIdentifier(oid: "1.2.840.113549.1.1.13"), .rsaPKCS1v15(.sha512)),
            (AlgorithmIdentifier(oid: "1.2.840.10045.4.3.3"), .ecdsa(.sha384)),
            (AlgorithmIdentifier(oid: "1.2.840.10045.4.1"), .ecdsa(.sha1)),
            (AlgorithmIdentifier(oid: "0.4.0.127.0.7.1.1.4.1.3"), .ecdsaPlain(.sha256)),
            (
                AlgorithmIdentifier(oid: "1.2.840.113549.1.1.10", parameters: pss),
                .rsaPSS(hash: .sha384, mgf1Hash: .sha384, saltLength: 48)
            ),
            (
                AlgorithmIdentifier(oid: "1.2.840.113549.1.1.10", parameters: DER.sequence([])),
                .rsaPSS(hash: .sha1, mgf1Hash: .sha1, saltLength: 20)
            ),
        ]
        for (id, expected) in cases {
            #expect(try id.signatureAlgorithm(step: .signature) == expected)
        }
        #expect(
            try AlgorithmIdentifier(oid: "1.2.840.113549.1.1.1").signatureAlgorithm(digest: .sha256, step: .cms)
                == .rsaPKCS1v15(.sha256))
        #expect(throws: TrustError.self) {
            try AlgorithmIdentifier(oid: "1.2.840.113549.1.1.4").signatureAlgorithm(step: .cms)
        }  // MD5
        let badTrailer = DER.sequence(DER.explicit(3, DER.integer(2)))
        #expect(throws: TrustError.self) {
            try AlgorithmIdentifier(oid: "1.2.840.113549.1.1.10", parameters: badTrailer).signatureAlgorithm(step: .cms)
        }
    }
}

func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard needle.count <= haystack.count else { return nil }
    for i in 0...(haystack.count - needle.count)
    where haystack[i] == needle[0] && Array(haystack[i..<(i + needle.count)]) == needle {
        return i
    }
    return nil
}
