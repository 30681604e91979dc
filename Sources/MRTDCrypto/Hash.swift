internal import CLibCrypto

/// SHA-1 and SHA-2 (FIPS 180-4) as used by ICAO 9303 (KDF, passive authentication, signatures).
public enum HashAlgorithm: String, Sendable, CaseIterable, Hashable {
    case sha1, sha224, sha256, sha384, sha512

    public var outputLength: Int {
        switch self {
        case .sha1: return 20
        case .sha224: return 28
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }

    /// Dotted OID (e.g. 2.16.840.1.101.3.4.2.1 for SHA-256). SHA-1: 1.3.14.3.2.26 (RFC 3279).
    public var oid: String {
        switch self {
        case .sha1: return "1.3.14.3.2.26"
        case .sha224: return "2.16.840.1.101.3.4.2.4"
        case .sha256: return "2.16.840.1.101.3.4.2.1"
        case .sha384: return "2.16.840.1.101.3.4.2.2"
        case .sha512: return "2.16.840.1.101.3.4.2.3"
        }
    }

    public init?(oid: String) {
        guard let match = Self.byOID[oid] else { return nil }
        self = match
    }

    private static let byOID = Dictionary(uniqueKeysWithValues: allCases.map { ($0.oid, $0) })

    /// The libcrypto digest (static objects, never freed).
    var evpMD: OpaquePointer {
        switch self {
        case .sha1: return EVP_sha1()
        case .sha224: return EVP_sha224()
        case .sha256: return EVP_sha256()
        case .sha384: return EVP_sha384()
        case .sha512: return EVP_sha512()
        }
    }

    public func hash(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: outputLength)
        var length: UInt32 = 0
        let rc = data.withUnsafeBytes { d in
            out.withUnsafeMutableBytes { o in
                EVP_Digest(
                    d.baseAddress, d.count, o.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, evpMD, nil)
            }
        }
        // EVP_Digest with a built-in SHA cannot fail except on allocation failure.
        precondition(rc == 1 && Int(length) == outputLength, "EVP_Digest failed: \(OpenSSL.drainErrors())")
        return out
    }
}
