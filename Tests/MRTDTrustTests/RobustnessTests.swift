import ASN1TLV
import MRTDDocument
import MRTDTestSupport
import Testing

@testable import MRTDTrust

/// Damaged inputs must be refused or reported, never crash: every truncation and single-bit flips
/// (a fixed pseudo-random sequence) of real certificates, CRLs and SODs.
struct RobustnessTests {
    /// A deterministic generator (64-bit LCG, Knuth MMIX constants) so failures reproduce.
    struct LCG {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test(.sharedFixtures, arguments: [Fixtures.deRoot, Fixtures.nlRoot, Fixtures.colCRL])
    func everyTruncationIsRefused(_ file: String) throws {
        let bytes = try Fixtures.bytes(file)
        for n in 0..<bytes.count {
            let prefix = Array(bytes.prefix(n))
            #expect((try? Certificate(der: prefix)) == nil)
            #expect((try? CertificateRevocationList(der: prefix)) == nil)
        }
    }

    @Test(.sharedFixtures, arguments: [Fixtures.deRoot, Fixtures.nlRoot, Fixtures.colCRL])
    func bitFlipsNeverCrashTheParsers(_ file: String) throws {
        let bytes = try Fixtures.bytes(file)
        var rng = LCG(state: 0x5EED)
        var parsed = 0
        for _ in 0..<600 {
            let damaged = flipBit(bytes, at: rng.next(bytes.count), bit: rng.next(8))
            if let c = try? Certificate(der: damaged) {
                parsed += 1
                _ = c.unhandledCriticalExtensions
                _ = try? c.publicKey()
            }
            if (try? CertificateRevocationList(der: damaged)) != nil { parsed += 1 }
            _ = TrustMaterialFiles.detectKind(damaged)
        }
        #expect(parsed > 0)  // most flips land in values, not in structure
    }

    /// Flips anywhere in an SOD: a report always comes back; a flip inside the signed content, the
    /// signed attributes or the signature value always fails sodSignature.
    @Test(.sharedFixtures, arguments: Specimen.all)
    func damagedSODsAreReportedNotFatal(_ s: Specimen) throws {
        let bytes = try Fixtures.bytes(s.sodFile)
        let groups = try s.dataGroups()
        let sd = try CMSSignedData(signedData: try s.sod().signedData)
        let si = sd.signerInfos[0]
        var covered: [Range<Int>] = []
        for part in [sd.eContent!, si.signedAttributesEncoded!, si.signature] {
            let at = try #require(firstIndex(of: part, in: bytes))
            covered.append(at..<(at + part.count))
        }
        var rng = LCG(state: 0xD0C)
        var coveredFlips = 0
        for _ in 0..<80 {
            let index = 4 + rng.next(bytes.count - 4)
            let damaged = flipBit(bytes, at: index, bit: rng.next(8))
            let r = PassiveAuthentication.verify(
                sodBytes: damaged, dataGroups: groups, issuingState: "D",
                trustStore: TrustStore(), validationTime: s.validationTime)
            #expect(r.checks.count == PassiveAuthenticationPolicy.icao9303.checks.count)
            if covered.contains(where: { $0.contains(index) }) {
                coveredFlips += 1
                #expect(r[.sodSignature]?.status == .failed, "flip at \(index): \(r[.sodSignature]!)")
            }
        }
        #expect(coveredFlips > 10)
    }
}
