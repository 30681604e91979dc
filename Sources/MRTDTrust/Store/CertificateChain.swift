import ASN1TLV

/// A path from a certificate to a CSCA of the trust store (ICAO 9303-11 §5.1.1 step 2,
/// 9303-12 §5.3 link certificates), leaf first, trust anchor last.
public struct CertificateChain: Sendable, Hashable {
    public let certificates: [Certificate]
    public var leaf: Certificate { certificates[0] }
    /// The CSCA of the store the path ends in.
    public var anchor: Certificate { certificates[certificates.count - 1] }
    /// Link certificates crossed on the way (CSCA key rollover).
    public var linkCertificates: [Certificate] { certificates.dropFirst().filter(\.isLinkCertificate) }
}

/// The outcome of building a chain.
public enum ChainOutcome: Sendable, Hashable {
    case anchored(CertificateChain)
    /// The trust store holds no CSCA at all.
    case emptyStore
    /// No CSCA of the store can have issued the certificate (by key identifier or name).
    case noIssuer(String)
    /// Candidate issuers exist but none of their keys verifies the signature.
    case signatureFailed(String)
}

extension TrustStore {
    /// Builds the path from `leaf` up to a CSCA of the store, verifying each certificate's signature
    /// with the candidate issuer's key (`MRTDCrypto.PublicKey`: named and explicit curves). Link
    /// certificates are followed to the older CSCA key when the store holds it; a CSCA of the store
    /// is a trust anchor by itself (the store only holds CSCAs from trusted sources).
    public func chain(for leaf: Certificate, maxDepth: Int = 6) -> ChainOutcome {
        guard hasCSCAs else { return .emptyStore }
        var path = [leaf]
        var current = leaf
        for depth in 0..<maxDepth {
            if depth > 0 && current.isSelfIssued && !current.isLinkCertificate {
                return .anchored(CertificateChain(certificates: path))  // a root CSCA
            }
            let candidates = issuerCandidates(for: current).filter { $0 != current && !path.contains($0) }
            if candidates.isEmpty {
                if depth > 0 { return .anchored(CertificateChain(certificates: path)) }
                let aki = current.authorityKeyIdentifier.map { ", authority key \(Hex.encode($0))" } ?? ""
                return .noIssuer("no CSCA in the trust store for issuer \(current.issuer)\(aki)")
            }
            var next: Certificate? = nil
            var problems: [String] = []
            for c in candidates {
                do {
                    if try current.isSignature(validFor: try c.publicKey()) {
                        next = c
                        break
                    }
                    problems.append(
                        "the key of CSCA \(c.subject) (serial \(c.serialHex)) does not verify \(current.subject)")
                } catch {
                    problems.append(error.reason)
                }
            }
            guard let next else {
                if depth > 0 { return .anchored(CertificateChain(certificates: path)) }
                return .signatureFailed(problems.joined(separator: "; "))
            }
            path.append(next)
            current = next
        }
        return .anchored(CertificateChain(certificates: path))
    }
}
