import ASN1TLV
import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
import MRTDTestSupport
import Testing

/// Garbled chip answers (bit flips, truncations) must end in a typed error, never a trap.
@Suite struct AccessControlFuzzTests {
    struct LCG {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(bound, 1)))
        }
    }

    static func mutate(_ r: [UInt8], _ rng: inout LCG) -> [UInt8] {
        var m = r
        guard m.count > 2 else { return m }
        if rng.next(2) == 0 {
            m = flipBit(m, at: rng.next(m.count - 2), bit: rng.next(8))
        } else {
            let keep = rng.next(m.count - 2)
            m = Array(m.prefix(keep)) + Array(m.suffix(2))
        }
        return m
    }

    @Test(arguments: [
        "pace/icao-9303-11-appG1-pace-ecdh-gm.json", "pace/icao-9303-11-appG2-pace-dh-gm.json",
        "pace/icao-9303-11-appI1-pace-ecdh-cam.json",
    ])
    func paceResponses(file: String) async throws {
        let v = try Vector(file)
        let info = try #require(SecurityInfos.parse(DER.set([v.bytes("pace_info")])).paceInfos.first)
        let key: AccessKey = file.contains("appI1") ? PACECAMTests.key : PACEGenericMappingTests.g1Key
        var rng = LCG(state: 7)
        var failures = 0
        for i in 0..<60 {
            var responses = v.apdus().map { hex($0.response) }
            let which = 1 + i % 4
            responses[which] = Self.mutate(responses[which], &rng)
            do {
                _ = try await PACE.perform(
                    transport: ResponderTransport(responses.map { hexString($0) }), key: key, info: info,
                    options: PACEOptions(sendParameterId: false),
                    random: FixedRandom([v.bytes("map_ifd_private"), v.bytes("eph_ifd_private")]))
            } catch is AccessControlError {
                failures += 1
            } catch {
                Issue.record("unexpected error type: \(type(of: error))")
            }
        }
        #expect(failures > 40)
    }

    @Test func bacResponses() async throws {
        let v = try Vector(BACTests.file)
        var rng = LCG(state: 11)
        for i in 0..<40 {
            var responses = [v.bytes("get_challenge_response"), v.bytes("external_authenticate_response")]
            responses[i % 2] = Self.mutate(responses[i % 2], &rng)
            await #expect(throws: AccessControlError.self) {
                _ = try await BAC.perform(
                    transport: ResponderTransport(responses.map { hexString($0) }),
                    key: try MRZKey(documentNumber: "L898902C<", dateOfBirth: "690806", dateOfExpiry: "940623"),
                    random: FixedRandom([v.bytes("rnd_ifd"), v.bytes("k_ifd"), v.bytes("rnd_ifd"), v.bytes("k_ifd")]))
            }
        }
    }

    @Test func activeAuthenticationRepresentatives() throws {
        let v = try Vector("aa/icao-9303-11-appF-aa.json")
        var rng = LCG(state: 3)
        for _ in 0..<300 {
            var f = v.bytes("f")
            f =
                rng.next(2) == 0
                ? flipBit(f, at: rng.next(f.count), bit: rng.next(8)) : Array(f.prefix(rng.next(f.count)))
            #expect(!ActiveAuthentication.verifyMessageRepresentative(f, challenge: v.bytes("rnd_ifd")).verified)
        }
    }
}
