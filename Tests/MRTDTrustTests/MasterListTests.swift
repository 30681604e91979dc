import ASN1TLV
import Foundation
import MRTDCrypto
import MRTDTestSupport
import Testing

@testable import MRTDTrust

/// ICAO 9303-12 §9 CSCA master lists: the real German and Dutch lists against their roots.
struct MasterListTests {
    struct RealList: Sendable, CustomStringConvertible {
        let list: String
        let root: String
        /// certList entries counted with `openssl asn1parse -strparse` (TestVectors/trust/README.md).
        let certificates: Int
        var description: String { list }
    }

    static let lists = [
        RealList(list: Fixtures.deMasterList, root: Fixtures.deRoot, certificates: 588),
        RealList(list: Fixtures.nlMasterList, root: Fixtures.nlRoot, certificates: 411),
    ]

    @Test(.sharedFixtures, arguments: lists)
    func readsQuickly(_ r: RealList) throws {
        let bytes = try Fixtures.bytes(r.list)
        let (ml, ms) = try threadCPUTime { try CSCAMasterList(bytes: bytes) }
        print("\(r.list): \(ml.certificates.count) certificates read in \(Int(ms)) ms of CPU")
        #expect(ml.version == 0)
        #expect(ml.certificates.count == r.certificates)
        #expect(ml.unreadableEntries.isEmpty)
        #expect(ml.certificates.allSatisfy { $0.subject.country != nil || $0.issuer.country != nil })
    }

    /// Certificates index their subject key identifier when read and decode the other extensions on
    /// first use: both must agree, for every certificate of the real lists.
    @Test(.sharedFixtures, arguments: lists)
    func lazilyDecodedExtensionsAgreeWithTheIndexedKeyIdentifier(_ r: RealList) throws {
        let ml = try CSCAMasterList(bytes: try Fixtures.bytes(r.list))
        var withSKI = 0
        for c in ml.certificates {
            #expect(c.subjectKeyIdentifier == c.decoded.subjectKeyIdentifier)
            if c.subjectKeyIdentifier != nil { withSKI += 1 }
            #expect(
                c.extensions.count
                    == (try TLVParser.parse(c.tbsCertificate).children.last.map {
                        $0.tag == 0xA3 ? $0.children[0].children.count : 0
                    } ?? 0))
            // A self-issued certificate's issuer is read once, as its subject: both must still compare and render alike.
            let reread = try DistinguishedName(encoded: c.issuer.encoded)
            #expect(c.issuer.canonical == reread.canonical)
            #expect(c.issuer.description == reread.description)
        }
        #expect(withSKI > ml.certificates.count / 2)
    }

    /// The first use of `decoded` may come from several threads at once.
    @Test(.sharedFixtures) func extensionsDecodeOnceUnderConcurrentFirstUse() async throws {
        let ml = try CSCAMasterList(bytes: try Fixtures.bytes(Fixtures.nlMasterList))
        let certs = Array(ml.certificates.prefix(64))
        let results = await withTaskGroup(of: [Bool].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    certs.map { $0.isCA && $0.decoded.keyUsage != nil && $0.extensions.count == $0.extensions.count }
                }
            }
            var all: [[Bool]] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(Set(results).count == 1)
        #expect(results[0].contains(true))
    }

    @Test(.sharedFixtures, arguments: lists)
    func verifiesToItsRoot(_ r: RealList) throws {
        let root = try Certificate(der: try Fixtures.bytes(r.root))
        let ml = try CSCAMasterList(bytes: try Fixtures.bytes(r.list))
        let v = try ml.verify(signerRoots: [root])
        #expect(v.root == root)
        #expect(v.signer.issuer == root.subject)
        #expect(v.signer != root)
    }

    @Test(.sharedFixtures) func germanSignerUsesExplicitBrainpoolParameters() throws {
        let ml = try CSCAMasterList(bytes: try Fixtures.bytes(Fixtures.deMasterList))
        let root = try Certificate(der: try Fixtures.bytes(Fixtures.deRoot))
        let v = try ml.verify(signerRoots: [root])
        let spki = try TLVParser.parse(v.signer.subjectPublicKeyInfo)
        #expect(spki.children[0].children[1].tag == 0x30)  // ECParameters SEQUENCE, not a curve OID
        guard case .ec(let curve) = try v.signer.publicKey().kind else {
            Issue.record("expected an EC key")
            return
        }
        #expect(curve.namedCurve == .brainpoolP256r1)  // explicit parameters matched to the named curve
        guard case .ec(let rootCurve) = try root.publicKey().kind else {
            Issue.record("expected an EC root key")
            return
        }
        #expect(rootCurve.namedCurve == .brainpoolP512r1)
    }

    @Test(.sharedFixtures, arguments: lists)
    func wrongRootIsRefused(_ r: RealList) throws {
        let other = try Certificate(
            der: try Fixtures.bytes(r.root == Fixtures.deRoot ? Fixtures.nlRoot : Fixtures.deRoot))
        let ml = try CSCAMasterList(bytes: try Fixtures.bytes(r.list))
        do {
            _ = try ml.verify(signerRoots: [other])
            Issue.record("a master list must not verify to another country's root")
        } catch {
            #expect(error.code == .untrusted)
        }
    }

    /// Tampered twins: one byte flipped in the signed content (eContent), one in the signature.
    @Test(.sharedFixtures, arguments: lists)
    func tamperedTwinsAreRefusedLoudly(_ r: RealList) throws {
        let bytes = try Fixtures.bytes(r.list)
        let ml = try CSCAMasterList(bytes: bytes)
        let root = try Certificate(der: try Fixtures.bytes(r.root))
        // A byte inside the 50th certificate of certList (inside eContent, structure intact).
        let cert = ml.certificates[50].encoded
        let contentIndex = try #require(firstIndex(of: cert, in: bytes)) + cert.count - 3  // inside its signature value
        // The last byte of the file is the last byte of the SignerInfo signature.
        let sig = ml.signedData.signerInfos[0].signature
        #expect(Array(bytes.suffix(sig.count)) == sig)
        let twins: [(String, [UInt8], TrustError.Code)] = [
            ("content", flipBit(bytes, at: contentIndex, bit: 3), .attributeMismatch),
            ("signature", flipBit(bytes, at: bytes.count - 5, bit: 0), .signatureInvalid),
        ]
        for (what, twin, code) in twins {
            var store = TrustStore(masterListSignerRoots: [root])
            do {
                try store.addMasterList(twin, source: "twin-\(what)")
                Issue.record("tampered \(what) accepted")
            } catch {
                #expect(error.error.code == code, "\(what): \(error)")
            }
            #expect(store.cscas.isEmpty)
            #expect(store.refused.count == 1)
            let summary = store.summary(at: ASN1Time(year: 2026, month: 11, day: 1))
            #expect(summary.masterLists.first?.result == "refused")
            #expect(summary.text.contains("REFUSED"))
        }
    }

    @Test(.sharedFixtures) func storeWithoutPinnedRootRefusesMasterList() throws {
        var store = TrustStore()
        #expect(throws: TrustStore.Refusal.self) {
            try store.addMasterList(try Fixtures.bytes(Fixtures.nlMasterList), source: "nl")
        }
        #expect(store.refused.first?.error.code == .untrusted)
    }
}
