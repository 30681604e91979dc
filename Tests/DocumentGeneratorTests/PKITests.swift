import ASN1TLV
import Foundation
import MRTDCrypto
import MRTDTestSupport
import MRTDTrust
import Testing

@testable import DocumentGenerator

@Suite("Generator: test PKI, certificates, CRL, CMS and master lists (RFC 5280, RFC 5652, ICAO 9303-12)")
struct PKITests {
    struct Case: Sendable, CustomStringConvertible {
        var algorithm: PKIAlgorithm
        var explicit: Bool
        var description: String { "\(algorithm.rawValue)\(explicit ? " explicit" : "")" }
    }

    static let cases: [Case] =
        PKIAlgorithm.allCases.map { Case(algorithm: $0, explicit: false) }
        + [Case(algorithm: .ecdsaBrainpoolP256r1, explicit: true), Case(algorithm: .ecdsaP256, explicit: true)]

    static func pki(_ c: Case) throws -> TestPKI {
        try TestPKI.generate(
            TestPKIOptions(
                cscaAlgorithm: c.algorithm, documentSignerAlgorithm: c.algorithm,
                explicitECParameters: c.explicit, keyTag: "pki-test"))
    }

    /// Verifies `cert`'s signature with `issuer`'s key through MRTDCrypto (works for explicit parameters too).
    static func signatureVerifies(_ cert: [UInt8], issuer: [UInt8], algorithm: SigningAlgorithm) throws
        -> Bool
    {
        let c = try TLVParser.parse(cert, rules: .der)
        let i = try TLVParser.parse(issuer, rules: .der)
        let issuerSPKI = try i.child(at: 0).child(at: 6).encodedBytes
        let key = try PublicKey(subjectPublicKeyInfo: issuerSPKI)
        return try key.verify(
            signature: try c.child(at: 2).bitStringValue(), message: try c.child(at: 0).encodedBytes,
            algorithm: algorithm.cryptoAlgorithm)
    }

    @Test(arguments: cases)
    func certificatesAreStrictDERAndVerify(_ c: Case) throws {
        let pki = try Self.pki(c)
        for der in [pki.csca.der, pki.documentSigner.der, pki.masterListSigner.der] {
            _ = try TLVParser.parse(der, rules: .der)
        }
        let alg = c.algorithm.signatureAlgorithm
        #expect(try Self.signatureVerifies(pki.csca.der, issuer: pki.csca.der, algorithm: alg))
        #expect(try Self.signatureVerifies(pki.documentSigner.der, issuer: pki.csca.der, algorithm: alg))
        // Negative twin: one bit of the signed TBS flipped.
        let tampered = flipBit(pki.documentSigner.der, at: 16)  // inside the serial number
        #expect(try !Self.signatureVerifies(tampered, issuer: pki.csca.der, algorithm: alg))

        let info = pki.documentSigner.info
        #expect(info.issuer.encoded == pki.csca.info.subject.encoded)
        #expect(info.subjectKeyIdentifier != nil && pki.csca.info.subjectKeyIdentifier != nil)

        if let text = try OpenSSL.text(pki.documentSigner.der) {
            #expect(text.status == 0, "\(text.stderr)")
            let t = String(decoding: text.stdout, as: UTF8.self)
            #expect(t.contains("Version: 3"))
            #expect(t.contains("C = UTO"))
            #expect(t.contains("Digital Signature"))
            #expect(t.contains("Private Key Usage Period"))
        }
        // OpenSSL 3 refuses explicit EC parameters in chain building; check named-curve chains with it.
        if !c.explicit, let r = try OpenSSL.verify(ca: pki.csca.der, leaf: pki.documentSigner.der) {
            #expect(r.status == 0, "openssl verify: \(r.stderr) \(String(decoding: r.stdout, as: UTF8.self))")
            let bad = try #require(
                try OpenSSL.verify(
                    ca: pki.csca.der, leaf: flipBit(pki.documentSigner.der, at: pki.documentSigner.der.count - 3)))
            #expect(bad.status != 0)
        }
    }

    @Test func explicitParametersAreEncodedInTheSubjectPublicKeyInfo() throws {
        let pki = try Self.pki(Case(algorithm: .ecdsaBrainpoolP256r1, explicit: true))
        let cert = try TLVParser.parse(pki.csca.der, rules: .der)
        let spki = try cert.child(at: 0).child(at: 6)
        let params = try spki.child(at: 0).child(at: 1)
        #expect(params.tag == 0x30)  // ECParameters SEQUENCE, not a named-curve OID
        #expect(try params.child(at: 0).integerValue() == 1)
        #expect(try params.child(at: 1).child(at: 0).objectIdentifierValue() == "1.2.840.10045.1.1")
        let curve = ECCurve(named: .brainpoolP256r1)
        #expect(try params.child(at: 1).child(at: 1).unsignedIntegerBytes() == Array(curve.p.drop { $0 == 0 }))
        #expect(try params.child(at: 3).octetStringValue() == curve.generator)
        let key = try PublicKey(subjectPublicKeyInfo: spki.encodedBytes)
        if case .ec(let c) = key.kind { #expect(c.namedCurve == .brainpoolP256r1) } else { Issue.record("not EC") }
    }

    @Test func crlListsTheRevokedSignerAndVerifies() throws {
        let pki = try Self.pki(Case(algorithm: .ecdsaP256, explicit: false))
        let crl = try pki.crl(revoking: [pki.documentSigner.info])
        let node = try TLVParser.parse(crl, rules: .der)
        let tbs = try node.child(at: 0)
        #expect(try tbs.child(at: 0).integerValue() == 1)
        let revoked = try tbs.child(at: 5)
        #expect(try revoked.child(at: 0).child(at: 0).unsignedIntegerBytes() == pki.documentSigner.info.serialMagnitude)
        #expect(try Self.signatureVerifies(crl, issuer: pki.csca.der, algorithm: .ecdsa(.sha256)))
        if let r = try OpenSSL.crl(crl, ca: pki.csca.der) {
            #expect(r.status == 0 && r.stderr.contains("verify OK"), "\(r.stderr)")
            #expect(
                String(decoding: r.stdout, as: UTF8.self).uppercased().contains(
                    hexString(pki.documentSigner.info.serialNumber)))
            let bad = try #require(try OpenSSL.crl(flipBit(crl, at: crl.count - 5), ca: pki.csca.der))
            #expect(!bad.stderr.contains("verify OK"))
        }
        // An empty CRL omits revokedCertificates.
        let empty = try TLVParser.parse(try pki.crl(), rules: .der)
        #expect(try empty.child(at: 0).child(at: 5).tag == 0xA0)
    }

    @Test(arguments: cases.filter { !$0.explicit })
    func sodVerifiesWithOpenSSLCMS(_ c: Case) throws {
        let pki = try Self.pki(c)
        let lso = LDSSecurityObjectEncoder.encode(
            hashes: [1: HashAlgorithm.sha256.hash([1]), 2: HashAlgorithm.sha256.hash([2])],
            hashAlgorithm: .sha256)
        let time = ASN1Time(year: 2021, month: 4, day: 16, hour: 9, minute: 30)
        for sid in [SignedDataBuilder.SignerIdentification.issuerAndSerialNumber, .subjectKeyIdentifier] {
            let sod = try LDSSecurityObjectEncoder.sod(
                securityObject: lso, signer: pki.documentSigner.signer,
                signingTime: time, signerIdentification: sid)
            let outer = try TLVParser.parse(sod, rules: .der)
            #expect(outer.tag == 0x77)
            let cms = outer.valueBytes
            let parsed = try ParsedSignedData(contentInfo: cms)
            #expect(parsed.eContentType == "2.23.136.1.1.1")
            #expect(parsed.eContent == lso)
            #expect(parsed.certificates == [pki.documentSigner.der])
            #expect(parsed.signingTime == time)
            #expect(
                try parsed.signedAttributes["1.2.840.113549.1.9.4"]?.octetStringValue()
                    == c.algorithm.signatureAlgorithm.hash.hash(lso))
            #expect(try parsed.signerInfo.child(at: 0).integerValue() == (sid == .issuerAndSerialNumber ? 1 : 3))
            if let (r, content) = try OpenSSL.cmsVerify(cms, ca: pki.csca.der) {
                #expect(r.status == 0, "openssl cms: \(r.stderr)")
                #expect(content == lso)
                // Negative twin: one bit of the encapsulated content flipped.
                let at = try #require(cms.firstRange(of: lso)).lowerBound + 10
                let (bad, _) = try #require(try OpenSSL.cmsVerify(flipBit(cms, at: at), ca: pki.csca.der))
                #expect(bad.status != 0)
            }
        }
    }

    @Test func masterListCarriesTheCSCAsAndVerifies() throws {
        let pki = try Self.pki(Case(algorithm: .ecdsaP256, explicit: false))
        let other = try TestPKI.makeCSCA(options: TestPKIOptions(country: "DE", keyTag: "ml-test"))
        let ml = try pki.masterList(certificates: [pki.csca.der, other.der])
        let parsed = try ParsedSignedData(contentInfo: ml)
        #expect(parsed.eContentType == "2.23.136.1.1.2")
        let list = try TLVParser.parse(parsed.eContent, rules: .der)
        #expect(try list.child(at: 0).integerValue() == 0)
        #expect(Set(try list.child(at: 1).children.map(\.encodedBytes)) == Set([pki.csca.der, other.der]))
        #expect(parsed.certificates.contains(pki.masterListSigner.der))
        let mls = try OpenSSL.text(pki.masterListSigner.der).map { String(decoding: $0.stdout, as: UTF8.self) }
        if let t = mls { #expect(t.contains("2.23.136.1.1.3")) }
        if let (r, content) = try OpenSSL.cmsVerify(ml, ca: pki.csca.der) {
            #expect(r.status == 0, "openssl cms: \(r.stderr)")
            #expect(content == parsed.eContent)
        }
    }
}
