import ASN1TLV
import Foundation
import MRTDCrypto
import MRTDTestSupport
import Testing

@testable import MRTDTrust

/// The trust store over the real master lists, roots and CRL.
struct TrustStoreTests {
    static func realStore() throws -> TrustStore {
        var store = TrustStore()
        try store.pinMasterListSignerRoot(path: Fixtures.path(Fixtures.deRoot))
        try store.pinMasterListSignerRoot(path: Fixtures.path(Fixtures.nlRoot))
        try store.load(path: Fixtures.path("masterlists"))
        return store
    }

    @Test(.sharedFixtures) func loadsFolderOfMasterListsAndRoots() throws {
        let (store, ms) = try threadCPUTime { try Self.realStore() }
        #expect(store.refused.isEmpty, "\(store.refused)")
        #expect(store.masterLists.count == 2)
        #expect(store.cscas.count > 600)
        #expect(store.duplicateCount > 0)  // the lists overlap, and the roots are in them
        let de = try Certificate(der: try Fixtures.bytes(Fixtures.deRoot))
        #expect(store.certificates(subjectKeyIdentifier: try #require(de.subjectKeyIdentifier)).contains(de))
        #expect(store.certificates(subject: de.subject).contains(de))
        let summary = store.summary(at: ASN1Time(year: 2026, month: 11, day: 29))
        #expect(summary.masterLists.allSatisfy { $0.result == "verified" })
        #expect(summary.countries.contains { $0.country == "DE" })
        #expect(summary.countries.contains { $0.country == "NL" })
        #expect(summary.countries.flatMap(\.cscas).contains { $0.validity == "expired" })  // kept, flagged
        let json = try summary.json()
        let decoded = try JSONDecoder().decode(TrustStore.Summary.self, from: Data(json.utf8))
        #expect(decoded == summary)
        #expect(json.contains("\"masterLists\""))
        #expect(summary.text.contains("DE: "))
        print("loading both master lists with their roots took \(Int(ms)) ms of CPU")
    }

    @Test(.sharedFixtures) func colombianCRLIsCheckedAgainstItsCSCAOrReported() throws {
        var store = try Self.realStore()
        let crl = try CertificateRevocationList(der: try Fixtures.bytes(Fixtures.colCRL))
        let candidates = store.certificates(subject: crl.issuer)
        let entry = try store.addCRL(der: try Fixtures.bytes(Fixtures.colCRL), source: "COL.crl")
        // The German and Dutch lists carry several Colombian CSCA generations; the CRL's authority
        // key identifier picks the one whose key verifies it.
        #expect(candidates.count > 1)
        #expect(entry.status == .verified)
        #expect(entry.verifiedBy?.subject == crl.issuer)
        #expect(entry.verifiedBy?.subjectKeyIdentifier == crl.authorityKeyIdentifier)
        #expect(store.crls(issuer: crl.issuer).count == 1)
        print("COL.crl: \(candidates.count) CSCA(s) named \(crl.issuer) in the master lists; status \(entry.status)")
        // A flipped signature byte: refused when the issuer is known, otherwise kept unverified and unused.
        var twinStore = try Self.realStore()
        let twin = flipBit(try Fixtures.bytes(Fixtures.colCRL), at: 960)
        if candidates.isEmpty {
            let e = try twinStore.addCRL(der: twin, source: "twin")
            #expect(e.status == .issuerNotFound)
            #expect(twinStore.crls(issuer: crl.issuer).isEmpty)
        } else {
            #expect(throws: TrustStore.Refusal.self) { try twinStore.addCRL(der: twin, source: "twin") }
        }
    }

    /// `emrtd --trust masterlists/`: the roots given as files anchor the master lists beside them,
    /// whatever the order; with that disabled and nothing pinned, both lists are refused.
    @Test(.sharedFixtures) func directlyGivenCSCAsAnchorMasterListsUnlessDisabled() throws {
        var store = TrustStore()
        let refused = try store.load(paths: [Fixtures.path(Fixtures.nlMasterList), Fixtures.path("masterlists")])
        #expect(refused.isEmpty, "\(refused)")
        #expect(store.masterLists.count == 2)
        #expect(store.masterListSignerRoots.count == 2)
        // they vouch for the lists but are CSCAs: the summary lists no pinned signer root
        let loaded = store.summary(at: ASN1Time(year: 2026, month: 11, day: 29))
        #expect(loaded.masterListSignerRoots.isEmpty && store.pinnedMasterListSignerRoots.isEmpty)
        #expect(!loaded.text.contains("Master-list signer roots"))
        store.pinMasterListSignerRoot(try Certificate(der: try Fixtures.bytes(Fixtures.nlRoot)))
        #expect(store.masterListSignerRoots.count == 2, "already accepted: not added twice")
        #expect(store.summary(at: ASN1Time(year: 2026, month: 11, day: 29)).masterListSignerRoots.count == 1)

        var strict = TrustStore()
        let refusedStrict = try strict.load(paths: [Fixtures.path("masterlists")], directCSCAsSignMasterLists: false)
        #expect(refusedStrict.count == 2)
        #expect(refusedStrict.allSatisfy { $0.kind == .masterList && $0.error.code == .untrusted })
        #expect(strict.cscas.count == 2)  // only the two roots
        let text = strict.summary(at: ASN1Time(year: 2026, month: 11, day: 29)).text
        #expect(text.contains("REFUSED"))
    }

    @Test(.sharedFixtures) func detectsFileKinds() throws {
        #expect(TrustMaterialFiles.detectKind(try Fixtures.bytes(Fixtures.colCRL)) == .crl)
        #expect(TrustMaterialFiles.detectKind(try Fixtures.bytes(Fixtures.deRoot)) == .certificate)
        #expect(TrustMaterialFiles.detectKind(try Fixtures.bytes(Fixtures.nlMasterList)) == .masterList)
        #expect(TrustMaterialFiles.detectKind([0x30, 0x03, 0x02, 0x01, 0x00]) == nil)
    }

    @Test(.sharedFixtures) func pemAndDERCertificatesLoadAndDuplicatesMerge() throws {
        let der = try Fixtures.bytes(Fixtures.nlRoot)
        let b64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        let pem = "-----BEGIN CERTIFICATE-----\n\(b64)\n-----END CERTIFICATE-----\n"
        let dir = TemporaryFolder.make("trust")
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(der).write(to: dir.appendingPathComponent("a.cer"))
        try Data(pem.utf8).write(to: dir.appendingPathComponent("b.pem"))
        try Data([0x01, 0x02, 0x03]).write(to: dir.appendingPathComponent("junk.bin"))
        var store = TrustStore()
        let refused = try store.load(path: dir.path)
        #expect(store.cscas.count == 1)
        #expect(store.duplicateCount == 1)
        #expect(store.entries.first?.sources.count == 2)
        #expect(refused.count == 1)
        #expect(refused.first?.source.hasSuffix("junk.bin") == true)
        #expect(throws: TrustError.self) { try store.load(path: dir.appendingPathComponent("missing").path) }
    }
}
