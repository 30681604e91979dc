import MRTDDocument
import MRTDTestSupport
import Testing

/// Mutated inputs (bit flips, truncations, inflated lengths) must parse or throw SecurityInfosError —
/// never trap. Deterministic (a fixed linear congruential sequence).
@Suite struct SecurityInfosFuzzTests {
    struct LCG {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test(
        .sharedFixtures,
        arguments: ["specimens/bsi2008/Datagroup14.bin", "lds-samples/EF_CardSecurity.bin", "cardaccess"])
    func mutations(source: String) throws {
        let original: [UInt8] =
            source == "cardaccess" ? hex(SecurityInfosTests.bsiECDHCardAccess) : try SecurityInfosFixtures.bytes(source)
        var rng = LCG(state: UInt64(original.count))
        var parsed = 0
        var rejected = 0
        for i in 0..<1500 {
            var m = original
            switch i % 3 {
            case 0: m = flipBit(m, at: rng.next(m.count), bit: rng.next(8))
            case 1: m = Array(m.prefix(rng.next(m.count)))
            default:
                let j = rng.next(m.count)
                m[j] = m[j] | 0x80
            }
            do {
                if source.hasSuffix("Datagroup14.bin") {
                    _ = try SecurityInfos.parseDG14(m)
                } else if source.hasSuffix("CardSecurity.bin") {
                    _ = try SecurityInfos.parseCardSecurity(m)
                } else {
                    _ = try SecurityInfos.parseCardAccess(m)
                }
                parsed += 1
            } catch {
                rejected += 1
                #expect(error.offset >= 0 && error.offset <= m.count)
            }
        }
        #expect(parsed + rejected == 1500)
        #expect(rejected > 0)
    }
}
