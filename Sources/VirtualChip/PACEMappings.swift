import MRTDCrypto
import MRTDSecureMessaging

/// PACE Chip Authentication Mapping, chip side (ICAO 9303-11 §4.4.3.5).
enum ChipAuthenticationMapping {
    /// CA_IC = SK_map,IC · SK_IC⁻¹ mod n, so that PK_map,IC = CA_IC · PK_IC (fixed width of n).
    static func chipAuthenticationData(mapPrivate: SecretBytes, staticPrivate: SecretBytes, order: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        let n = BigNumber(order)
        guard let inverse = BigNumber.modInverse(BigNumber(staticPrivate.bytes).mod(n), n) else {
            throw CryptoError(.invalidKey, function: "ChipAuthenticationMapping", "static key not invertible")
        }
        return BigNumber.modMul(BigNumber(mapPrivate.bytes), inverse, n).bytes(width: n.bytes.count)
    }

    /// A_IC = E(KS_enc, CA_IC) with AES-CBC, IV = E(KS_enc, 'FF'…'FF'), ISO/IEC 9797-1 padding method 2.
    static func encrypt(_ data: [UInt8], keys: SessionKeys) throws(CryptoError) -> [UInt8] {
        let iv = try AES.encryptECB(key: keys.encryption, [UInt8](repeating: 0xFF, count: 16))
        return try AES.encryptCBC(key: keys.encryption, iv: iv, Padding.pad(data, blockSize: 16))
    }
}
