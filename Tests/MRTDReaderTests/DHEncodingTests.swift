import ISO7816
import MRTDAccessControl
import MRTDDocument
import MRTDReader
import Testing

/// DH public values are sent and MACed as unsigned integers without leading zero octets
/// (ICAO 9303-11 §9.4.1); about 1 key in 256 has a leading zero octet, so a chip and a terminal that
/// disagree on the encoding fail about 1 PACE-DH run in 128. Many runs make that disagreement visible.
@Suite struct DHEncodingTests {
    @Test func paceDHSucceedsRepeatedly() async throws {
        let doc = try VirtualDocument("pace-gm-dh-3des")
        let cardAccess = try SecurityInfos.parseCardAccess(doc.generated.profile.files[.cardAccess]!)
        var failures = 0
        for _ in 0..<600 {
            let fresh = try doc.fresh()
            do {
                _ = try await AccessControl.establish(
                    transport: fresh.transport, key: doc.mrzKey, cardAccess: cardAccess,
                    allowBACFallback: false)
            } catch {
                failures += 1
            }
        }
        #expect(failures == 0, "\(failures) of 600 PACE-DH runs failed")
    }
}
