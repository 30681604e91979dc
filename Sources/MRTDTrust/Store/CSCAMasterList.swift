public import ASN1TLV
public import MRTDCrypto

/// An ICAO CSCA master list (ICAO 9303-12 §9): CMS SignedData whose eContentType is
/// id-icao-cscaMasterList (2.23.136.1.1.2) and whose eContent is
///
/// ```
/// CscaMasterList ::= SEQUENCE {
///     version CscaMasterListVersion,   -- v0(0)
///     certList SET OF Certificate }
/// ```
///
/// Reading does not make the certificates trusted: `verify(signerRoots:)` checks the CMS signature
/// and that the master-list signer certificate chains to a root the user pinned.
public struct CSCAMasterList: Sendable, Hashable {
    public let signedData: CMSSignedData
    public let version: Int
    /// The CSCA certificates of certList that could be read.
    public let certificates: [Certificate]
    /// certList entries that could not be read (skipped, reported).
    public let unreadableEntries: [String]

    /// Reads a master list and every certificate of it, without verifying anything (`verify(signerRoots:)`).
    /// To load trust material use `verified(bytes:signerRoots:)`, which parses no certificate of a list
    /// whose signature fails. A list above `TrustLimits.maxMasterListBytes` is refused before parsing.
    public init(bytes: [UInt8]) throws(TrustError) {
        let (sd, content) = try Self.signedContent(bytes)
        try self.init(signedData: sd, content: content)
    }

    /// Verifies the master list's signature and signer chain first (`verify(signerRoots:)`), and only then
    /// parses its certificates: an unsigned or forged list costs its CMS envelope and one digest, never the
    /// parse of its certificate list (docs/reliability.md, "Limits").
    public static func verified(bytes: [UInt8], signerRoots: [Certificate]) throws(TrustError) -> (
        CSCAMasterList, Verification
    ) {
        let (sd, content) = try signedContent(bytes)
        let verification = try verify(sd, signerRoots: signerRoots)
        return (try CSCAMasterList(signedData: sd, content: content), verification)
    }

    /// The SignedData of a master list and its eContent, after the size cap and content-type checks.
    private static func signedContent(_ bytes: [UInt8]) throws(TrustError) -> (CMSSignedData, [UInt8]) {
        try TrustLimits.check(bytes.count, kind: .masterList, step: .masterList)
        let sd = try CMSSignedData(contentInfo: bytes)
        guard sd.eContentType == TrustOID.cscaMasterList else {
            throw TrustError(
                .malformed, .masterList, "eContentType \(sd.eContentType.dotted) is not id-icao-cscaMasterList")
        }
        guard let content = sd.eContent else {
            throw TrustError(.malformed, .masterList, "master list without eContent")
        }
        return (sd, content)
    }

    private init(signedData sd: CMSSignedData, content: [UInt8]) throws(TrustError) {
        // Read with a cursor: a tree of several hundred certificates' nodes would only be thrown away.
        var certs: [Certificate] = []
        var bad: [String] = []
        let v: Int
        do throws(TLVError) {
            var top = TLVCursor(content)
            let list = try top.next(0x30, "CscaMasterList")
            guard top.isAtEnd else { throw TLVError(.trailingData, offset: list.end, "bytes after CscaMasterList") }
            var fields = try top.children(of: list)
            let versionHeader = try fields.next(0x02, "CscaMasterList.version")
            v = try fields.node(versionHeader).integerValue()
            let set = try fields.next(0x31, "CscaMasterList.certList")
            guard fields.isAtEnd else {
                throw TLVError(.trailingData, offset: set.end, "CscaMasterList has more than two fields")
            }
            var entries = try fields.children(of: set)
            var i = 0
            while let e = try entries.next() {
                do { certs.append(try Certificate(slice: entries.encoded(e))) } catch {
                    bad.append("certList #\(i): \(error.reason)")
                }
                i += 1
            }
        } catch {
            throw TrustError(
                .malformed, .masterList, "CscaMasterList is not SEQUENCE { version, certList SET OF }: \(error.reason)")
        }
        version = v
        signedData = sd
        certificates = certs
        unreadableEntries = bad
    }

    /// The outcome of a successful verification.
    public struct Verification: Sendable, Hashable {
        /// The master-list signer certificate.
        public let signer: Certificate
        /// The pinned root the signer chains to (may be the signer itself when the user pinned it).
        public let root: Certificate
        public let signingTime: ASN1Time?
        public let signatureAlgorithm: SignatureAlgorithm
    }

    /// Verifies every SignerInfo (RFC 5652 §5.6) and that each signer certificate is a pinned root
    /// or is signed by one (its signature checked with `MRTDCrypto.PublicKey`, so explicit EC
    /// parameters are fine), possibly through one intermediate embedded in the SignedData.
    /// Throws `signatureInvalid`, `signerNotFound`, `attributeMismatch` or `untrusted`.
    ///
    /// Time is not enforced here: a master list signed while its signer was valid stays a valid
    /// statement about which CSCAs exist; `TrustStore.Summary` reports the signer's validity.
    public func verify(signerRoots: [Certificate]) throws(TrustError) -> Verification {
        try Self.verify(signedData, signerRoots: signerRoots)
    }

    private static func verify(_ signedData: CMSSignedData, signerRoots: [Certificate]) throws(TrustError)
        -> Verification
    {
        guard !signedData.signerInfos.isEmpty else {
            throw TrustError(.malformed, .masterList, "master list has no SignerInfo")
        }
        guard !signerRoots.isEmpty else {
            throw TrustError(
                .untrusted, .masterList, "no master-list signer root is pinned: the list cannot be trusted")
        }
        var result: Verification? = nil
        for i in signedData.signerInfos.indices {
            let signer = try signedData.verifySigner(at: i) { sid in signerRoots.filter { sid.matches($0) } }
            let root = try anchor(signer.certificate, roots: signerRoots, intermediates: signedData.certificates)
            if result == nil {
                result = Verification(
                    signer: signer.certificate, root: root, signingTime: signer.signingTime,
                    signatureAlgorithm: signer.signatureAlgorithm)
            }
        }
        return result!
    }

    /// Finds the pinned root `certificate` chains to (depth ≤ 3), verifying each signature.
    static func anchor(_ certificate: Certificate, roots: [Certificate], intermediates: [Certificate])
        throws(TrustError) -> Certificate
    {
        if roots.contains(certificate) { return certificate }
        var current = certificate
        var problems: [String] = []
        for _ in 0..<3 {
            for root in roots where current.isPossiblyIssued(by: root) {
                do {
                    if try current.isSignature(validFor: try root.publicKey()) { return root }
                    problems.append(
                        "signature of \(current.subject) does not verify with root \(root.subject) (serial \(root.serialHex))"
                    )
                } catch {
                    problems.append(error.reason)
                }
            }
            guard let next = intermediates.first(where: { $0 != current && current.isPossiblyIssued(by: $0) }),
                (try? current.isSignature(validFor: try next.publicKey())) == true
            else { break }
            current = next
        }
        let detail =
            problems.isEmpty
            ? "no pinned root issued \(current.subject) (issuer \(current.issuer))" : problems.joined(separator: "; ")
        throw TrustError(.untrusted, .masterList, "master-list signer does not chain to a pinned root: \(detail)")
    }
}
