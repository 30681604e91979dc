import MRTDCrypto

/// PACE-CAM's encrypted chip data under the session's encryption key (ICAO 9303-11 §4.4.3.5.2).
extension SecureMessagingSession {

    /// Encrypts with the session's encryption key in the way PACE-CAM's encrypted chip data uses
    /// (AES-CBC, IV = E(KSenc, FF…FF), padding method 2; ICAO 9303-11 §4.4.3.5.2). AES sessions only.
    /// Does not touch the SSC.
    public func encryptCAMData(_ data: [UInt8]) throws(SecureMessagingError) -> [UInt8] {
        do {
            let iv = try camIV()
            return try AES.encryptCBC(key: keys.encryption, iv: iv, Padding.pad(data, blockSize: 16))
        } catch {
            throw fail(.decryptionFailed, "CAM data encryption failed: \(error.code.rawValue)")
        }
    }

    public func decryptCAMData(_ data: [UInt8]) throws(SecureMessagingError) -> [UInt8] {
        do {
            let iv = try camIV()
            return try Padding.unpad(AES.decryptCBC(key: keys.encryption, iv: iv, data), blockSize: 16)
        } catch {
            throw fail(.decryptionFailed, "CAM data decryption failed: \(error.code.rawValue)")
        }
    }

    private func camIV() throws(CryptoError) -> [UInt8] {
        guard keys.cipher != .tripleDES else {
            throw CryptoError(.unsupportedAlgorithm, function: "SecureMessagingSession.camIV", "PACE-CAM requires AES")
        }
        return try AES.encryptECB(key: keys.encryption, [UInt8](repeating: 0xFF, count: 16))
    }
}
