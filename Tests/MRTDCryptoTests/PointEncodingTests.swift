import Testing

@testable import MRTDCrypto

/// EC point encodings are checked for shape (SEC 1 §2.3.4: prefix and length for the field width) before
/// libcrypto is asked, and a point off the curve is refused with a plain reason (refusing a hostile
/// point costs about what accepting a genuine one does; figures in docs/reliability.md).
@Suite struct PointEncodingTests {
    let curve = ECCurve(named: .brainpoolP256r1)

    @Test func genuineUncompressedAndCompressedPointsDecode() throws {
        let point = try curve.multiply(curve.parameters.generator, by: [0x12, 0x34, 0x56])
        #expect(try curve.decodePoint(point) == point)
        let compressed = [0x02 | (point.last! & 1)] + Array(point[1...32])
        #expect(try curve.decodePoint(compressed) == point)
    }

    @Test(arguments: [
        [0x04] + [UInt8](repeating: 1, count: 64 - 1),  // one byte short
        [0x04] + [UInt8](repeating: 1, count: 65),  // one byte long
        [0x02] + [UInt8](repeating: 1, count: 64),  // compressed prefix, uncompressed length
        [0x05] + [UInt8](repeating: 1, count: 64),  // no such prefix
        [0x04],
    ])
    func malformedEncodingsAreRefusedByShape(_ encoded: [UInt8]) {
        let error = #expect(throws: CryptoError.self) { try curve.decodePoint(encoded) }
        #expect(error?.code == .invalidPoint)
        #expect(error?.reason.contains("no point encoding for a 32-byte field") == true, "\(String(describing: error))")
    }

    @Test func pointOffTheCurveIsRefusedAndLeavesNoLibcryptoError() throws {
        var point = try curve.multiply(curve.parameters.generator, by: [0x12, 0x34, 0x56])
        point[40] ^= 0x01
        let error = #expect(throws: CryptoError.self) { try curve.decodePoint(point) }
        #expect(error?.code == .invalidPoint && error?.reason == "the point is not on the curve")
        #expect(OpenSSL.drainErrors() == "failed", "the error queue was left empty")
    }
}
