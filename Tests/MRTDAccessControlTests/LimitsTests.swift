import ASN1TLV
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
import Testing

/// A DG14 whose Chip Authentication key sits on an explicit curve of 8192 or 16384 bits is refused from the
/// size of p, before any arithmetic (an 8192-bit curve in DG14 cost 4–8 s during a live read, a
/// 16384-bit one 50 s). The same initialiser builds the curves of PACE-CAM data and of signer keys.
@Suite struct CurveLimitTests {
    static func dg14(fieldBits: Int) -> [UInt8] {
        var p = [UInt8](repeating: 0xA5, count: fieldBits / 8)
        p[0] = 0xC5
        p[p.count - 1] |= 1
        let w = p.count
        let point = [0x04] + [UInt8](repeating: 0x11, count: 2 * w)
        let primeField: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x01, 0x01]
        let ecParameters = TLVWriter.encode(
            0x30,
            [0x02, 0x01, 0x01]
                + TLVWriter.encode(0x30, primeField + TLVWriter.encode(0x02, [0] + p))
                + TLVWriter.encode(
                    0x30,
                    TLVWriter.encode(0x04, [UInt8](repeating: 0, count: w - 1) + [3])
                        + TLVWriter.encode(0x04, [UInt8](repeating: 0, count: w - 1) + [7]))
                + TLVWriter.encode(0x04, point) + TLVWriter.encode(0x02, [0] + p) + [0x02, 0x01, 0x01])
        let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
        let spki = TLVWriter.encode(
            0x30, TLVWriter.encode(0x30, ecPublicKey + ecParameters) + TLVWriter.encode(0x03, [0] + point))
        let pkECDH: [UInt8] = [0x06, 0x09, 0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x01, 0x02]
        let caECDHAES128: [UInt8] = [0x06, 0x0A, 0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x03, 0x02, 0x02]
        let caInfo = TLVWriter.encode(0x30, caECDHAES128 + [0x02, 0x01, 0x01])
        let caKey = TLVWriter.encode(0x30, pkECDH + spki)
        return TLVWriter.encode(0x6E, TLVWriter.encode(0x31, caInfo + caKey))
    }

    @Test(arguments: [8192, 16384])
    func chipAuthenticationKeyOnAHugeExplicitCurveIsRefused(bits: Int) throws {
        let infos = try SecurityInfos.parseDG14(Self.dg14(fieldBits: bits))
        do {
            _ = try ChipAuthentication.parameters(from: infos)
            Issue.record("a \(bits)-bit explicit curve was taken for Chip Authentication")
        } catch {
            #expect(error.reason.contains("CryptoLimits.maxECFieldBits"), "\(error)")
        }
    }
}

/// Active Authentication keys are held to `LDSLimits.maxActiveAuthenticationRSABits` (4096) where the reader
/// takes them from DG15, below the 8192 bits other RSA keys may have.
@Suite struct ActiveAuthenticationKeyLimitTests {
    static func dg15(modulusBits: Int) -> [UInt8] {
        var n = [UInt8](repeating: 0xA5, count: modulusBits / 8)
        n[0] = 0xC5
        n[n.count - 1] |= 1
        let rsaKey = TLVWriter.encode(0x30, TLVWriter.encode(0x02, [0] + n) + TLVWriter.encode(0x02, [1, 0, 1]))
        let alg = TLVWriter.encode(
            0x30, [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])
        return TLVWriter.encode(0x6F, TLVWriter.encode(0x30, alg + TLVWriter.encode(0x03, [0] + rsaKey)))
    }

    @Test func aaKeyAboveItsCapIsRefused() throws {
        do {
            _ = try ActiveAuthentication.publicKey(dg15: Self.dg15(modulusBits: 8192))
            Issue.record("an 8192-bit AA key was taken")
        } catch {
            #expect(error.reason.contains("LDSLimits.maxActiveAuthenticationRSABits"), "\(error)")
        }
        let atCap = try ActiveAuthentication.publicKey(
            dg15: Self.dg15(modulusBits: LDSLimits.maxActiveAuthenticationRSABits))
        #expect(atCap.kind == .rsa(modulusBits: LDSLimits.maxActiveAuthenticationRSABits))
    }
}
