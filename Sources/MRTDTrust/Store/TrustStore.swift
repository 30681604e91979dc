public import ASN1TLV
import Foundation
import MRTDCrypto

/// The trust material passive authentication needs (ICAO 9303-11 §5.1, 9303-12 §5–§9): CSCA
/// certificates (DER, PEM, folders, ICAO master lists verified to pinned master-list signer roots),
/// other certificates that may sign CMS objects (document signers), and CRLs whose signature was
/// checked against their issuing CSCA.
///
/// A value type: build it once, then share it (it is `Sendable`). Certificates are indexed by
/// subject key identifier and by canonical subject name, so lookups never scan the store.
/// Duplicates are merged (every source is remembered); expired certificates are kept and flagged
/// by `summary(at:)`; nothing of that is fatal. What cannot be trusted is refused and recorded in
/// `refused` (and thrown by the `add…` calls, so callers see it).
public struct TrustStore: Sendable {
    /// A certificate held by the store with where it came from.
    public struct Entry: Sendable, Hashable {
        public let certificate: Certificate
        /// File names or "master list X" for every time this certificate was added.
        public internal(set) var sources: [String]
        /// True for CSCAs (and link certificates): trust anchors for `cscaChain`. A certificate is a
        /// CSCA when a master list says so, or when it is a CA (basicConstraints cA) or a self-issued
        /// certificate without basicConstraints (some early CSCAs).
        public internal(set) var isCSCA: Bool
    }

    /// A CRL with the result of checking its signature.
    public struct CRLEntry: Sendable, Hashable {
        public enum Status: String, Sendable, Hashable, Codable {
            /// The signature verified with the key of a CSCA of the store: used for revocation.
            case verified
            /// No CSCA of the store matches the CRL's issuer yet: not used.
            case issuerNotFound
        }
        public let crl: CertificateRevocationList
        public let source: String
        public internal(set) var status: Status
        /// The CSCA whose key verified the CRL.
        public internal(set) var verifiedBy: Certificate?
    }

    /// A master list that was loaded.
    public struct MasterListRecord: Sendable, Hashable {
        public let source: String
        public let signer: Certificate
        public let root: Certificate
        public let signingTime: ASN1Time?
        public let certificateCount: Int
        public let added: Int
        public let duplicates: Int
        public let unreadableEntries: [String]
    }

    /// Something that was not taken into the store, and why.
    public struct Refusal: Sendable, Hashable, Error, CustomStringConvertible {
        public let source: String
        /// What the entry was taken for, when known.
        public let kind: FileKind?
        public let error: TrustError
        public var description: String { "\(source): \(error)" }
    }

    /// Roots master-list signers must chain to (ICAO 9303-12 §9: the master-list signer certificate is issued
    /// by a CSCA the relying party already trusts): those pinned with `pinMasterListSignerRoot`, and the
    /// self-issued CSCAs given directly to `load` (unless `directCSCAsSignMasterLists` is false).
    public private(set) var masterListSignerRoots: [Certificate]
    public private(set) var entries: [Entry] = []
    public private(set) var crlEntries: [CRLEntry] = []
    public private(set) var masterLists: [MasterListRecord] = []
    public private(set) var refused: [Refusal] = []
    /// How many additions were duplicates of a certificate already held.
    public private(set) var duplicateCount = 0

    private var indexByEncoded: [ByteKey: Int] = [:]
    private var indexBySKI: [ByteKey: [Int]] = [:]
    private var indexBySubject: [String: [Int]] = [:]
    private var indexByIssuerSerial: [IssuerSerialKey: [Int]] = [:]
    private var crlIndexByIssuer: [String: [Int]] = [:]
    private var masterListIndexByContent: [ByteKey: Int] = [:]

    private var signerRootKeys: Set<ByteKey> = []
    /// The roots pinned as such (not the CSCAs that also vouch for master lists): what the summary lists.
    private var explicitRootKeys: Set<ByteKey> = []

    public init(masterListSignerRoots: [Certificate] = []) {
        self.masterListSignerRoots = []
        for root in masterListSignerRoots { pinMasterListSignerRoot(root) }
    }

    // MARK: Adding

    /// Pins a master-list signer root (it is not a CSCA for documents unless also added as one).
    public mutating func pinMasterListSignerRoot(_ root: Certificate) {
        explicitRootKeys.insert(ByteKey(root.encoded))
        acceptAsMasterListSignerRoot(root)
    }

    /// A root master-list signers may chain to, without listing it as a pinned root (a CSCA given directly).
    private mutating func acceptAsMasterListSignerRoot(_ root: Certificate) {
        // indexed: a PEM of thousands of self-signed CSCAs accepts each of them (a linear `contains` was quadratic)
        if signerRootKeys.insert(ByteKey(root.encoded)).inserted { masterListSignerRoots.append(root) }
    }

    /// The roots pinned with `pinMasterListSignerRoot` (the CSCAs given to `load` that also vouch for master
    /// lists are CSCAs, and listed as such).
    public var pinnedMasterListSignerRoots: [Certificate] {
        masterListSignerRoots.filter { explicitRootKeys.contains(ByteKey($0.encoded)) }
    }

    /// Adds a certificate; CSCAs become trust anchors for document signer chains (`asCSCA` forces
    /// it, as for master-list entries; otherwise CA or self-issued without basicConstraints).
    /// Returns false when it was a duplicate (its source is then added to the existing entry).
    @discardableResult
    public mutating func add(_ certificate: Certificate, source: String, asCSCA: Bool? = nil) -> Bool {
        let csca =
            asCSCA ?? (certificate.isCA || (certificate.decoded.basicConstraints == nil && certificate.isSelfIssued))
        if let i = indexByEncoded[ByteKey(certificate.encoded)] {
            if !entries[i].sources.contains(source) { entries[i].sources.append(source) }
            if csca && !entries[i].isCSCA { entries[i].isCSCA = true }
            duplicateCount += 1
            return false
        }
        let i = entries.count
        entries.append(Entry(certificate: certificate, sources: [source], isCSCA: csca))
        indexByEncoded[ByteKey(certificate.encoded)] = i
        if let ski = certificate.subjectKeyIdentifier { indexBySKI[ByteKey(ski), default: []].append(i) }
        indexBySubject[certificate.subject.canonical, default: []].append(i)
        indexByIssuerSerial[Self.issuerSerialKey(certificate.issuer, certificate.serialNumber), default: []].append(i)
        if csca { recheckCRLs(issuer: certificate.subject.canonical) }
        return true
    }

    /// Room for `n` certificates in the entries and indexes (no re-hashing while a master list is added).
    private mutating func reserveCapacity(_ n: Int) {
        entries.reserveCapacity(n)
        indexByEncoded.reserveCapacity(n)
        indexBySKI.reserveCapacity(n)
        indexBySubject.reserveCapacity(n)
        indexByIssuerSerial.reserveCapacity(n)
    }

    /// Reads and adds a certificate (DER or BER); refused (recorded and thrown) when unreadable.
    @discardableResult
    public mutating func addCertificate(der bytes: [UInt8], source: String) throws(Refusal) -> Certificate {
        // the same bytes again (a PEM of 4,096 copies of one certificate): recorded as a duplicate, not decoded again
        if let i = indexByEncoded[ByteKey(bytes)] {
            let c = entries[i].certificate
            add(c, source: source)
            return c
        }
        do {
            try TrustLimits.check(bytes.count, kind: .certificate, step: .certificate)
            let c = try Certificate(der: bytes)
            add(c, source: source)
            return c
        } catch {
            throw refuse(source, error, kind: .certificate)
        }
    }

    /// Reads a CSCA master list, verifies it to the pinned roots and adds its certificates.
    /// A list whose signature or signer chain fails is refused: nothing of it is added, the refusal
    /// is recorded and thrown.
    @discardableResult
    public mutating func addMasterList(_ bytes: [UInt8], source: String) throws(Refusal) -> MasterListRecord {
        // The same file given twice (compared byte for byte; hashed by its tail, the signature)
        if let i = masterListIndexByContent[ByteKey(bytes)] { return masterLists[i] }
        let list: CSCAMasterList
        let verification: CSCAMasterList.Verification
        do {
            // signature and signer chain first: the certificates of a list nobody vouches for are never parsed
            (list, verification) = try CSCAMasterList.verified(bytes: bytes, signerRoots: masterListSignerRoots)
        } catch {
            throw refuse(source, error, kind: .masterList)
        }
        var added = 0
        var dup = 0
        reserveCapacity(entries.count + list.certificates.count)
        for c in list.certificates {
            if add(c, source: "master list \(source)", asCSCA: true) { added += 1 } else { dup += 1 }
        }
        let record = MasterListRecord(
            source: source, signer: verification.signer, root: verification.root,
            signingTime: verification.signingTime, certificateCount: list.certificates.count,
            added: added, duplicates: dup, unreadableEntries: list.unreadableEntries)
        masterListIndexByContent[ByteKey(bytes)] = masterLists.count
        masterLists.append(record)
        return record
    }

    /// Reads a CRL and checks its signature against the issuing CSCA of the store (RFC 5280 §6.3.3).
    /// A CRL whose issuer is not (yet) in the store is kept as `issuerNotFound` and re-checked when
    /// CSCAs are added; a CRL whose signature fails with every candidate issuer is refused.
    @discardableResult
    public mutating func addCRL(der bytes: [UInt8], source: String) throws(Refusal) -> CRLEntry {
        let crl: CertificateRevocationList
        do {
            try TrustLimits.check(bytes.count, kind: .crl, step: .crl)
            crl = try CertificateRevocationList(der: bytes)
        } catch { throw refuse(source, error, kind: .crl) }
        if let existing = crlEntries.first(where: { $0.crl == crl }) { return existing }
        var entry = CRLEntry(crl: crl, source: source, status: .issuerNotFound, verifiedBy: nil)
        let candidates = crlIssuerCandidates(crl)
        if !candidates.isEmpty {
            if let issuer = candidates.first(where: { (try? crl.isSignature(validFor: try $0.publicKey())) == true }) {
                entry.status = .verified
                entry.verifiedBy = issuer
            } else {
                throw refuse(
                    source, kind: .crl,
                    TrustError(
                        .signatureInvalid, .crl,
                        "CRL signature does not verify with any of the \(candidates.count) CSCA(s) named \(crl.issuer)")
                )
            }
        }
        crlIndexByIssuer[crl.issuer.canonical, default: []].append(crlEntries.count)
        crlEntries.append(entry)
        return entry
    }

    private func crlIssuerCandidates(_ crl: CertificateRevocationList) -> [Certificate] {
        var c = cscas(subject: crl.issuer)
        if let aki = crl.authorityKeyIdentifier {
            let byKey = c.filter { $0.subjectKeyIdentifier == aki || $0.subjectKeyIdentifier == nil }
            if !byKey.isEmpty { c = byKey }
        }
        return c
    }

    private mutating func recheckCRLs(issuer canonical: String) {
        guard let idx = crlIndexByIssuer[canonical] else { return }
        for i in idx where crlEntries[i].status == .issuerNotFound {
            let crl = crlEntries[i].crl
            if let issuer = crlIssuerCandidates(crl).first(where: {
                (try? crl.isSignature(validFor: try $0.publicKey())) == true
            }) {
                crlEntries[i].status = .verified
                crlEntries[i].verifiedBy = issuer
            }
        }
    }

    private mutating func refuse(_ source: String, kind: FileKind?, _ error: TrustError) -> Refusal {
        refuse(source, error, kind: kind)
    }

    private mutating func refuse(_ source: String, _ error: TrustError, kind: FileKind? = nil) -> Refusal {
        let r = Refusal(source: source, kind: kind, error: error)
        refused.append(r)
        return r
    }

    // MARK: Loading files

    /// What a file holds, detected from its content (not its name).
    public enum FileKind: String, Sendable, Codable { case certificate, masterList, crl }

    /// Loads a file or a folder; see `load(paths:directCSCAsSignMasterLists:)`.
    @discardableResult
    public mutating func load(path: String, directCSCAsSignMasterLists: Bool = true) throws(TrustError) -> [Refusal] {
        try load(paths: [path], directCSCAsSignMasterLists: directCSCAsSignMasterLists)
    }

    /// Loads files and folders (recursively, in name order) as `emrtd --trust PATH…` does: DER or
    /// PEM certificates (CSCAs or document signers), ICAO master lists and CRLs (DER or PEM), whatever
    /// their file names. Order does not matter: certificates are taken first, then master lists,
    /// then CRLs (so a CRL finds its CSCA, a master list its root).
    ///
    /// Master lists are verified to the pinned roots (`pinMasterListSignerRoot`) and, when
    /// `directCSCAsSignMasterLists` is true, also to the self-issued CSCA certificates given here
    /// directly (not those from master lists): a CSCA the user trusts by hand may vouch for its
    /// country's master list, which is how ICAO master lists are meant to be anchored (9303-12 §9).
    ///
    /// Unreadable or untrusted entries are refused and recorded (see `refused`), not thrown; only a
    /// path that does not exist throws. Returns the refusals of this call.
    @discardableResult
    public mutating func load(paths: [String], directCSCAsSignMasterLists: Bool = true) throws(TrustError) -> [Refusal]
    {
        let before = refused.count
        let material = try TrustMaterialFiles(paths: paths)
        refused += material.refusals
        let byKind = material.byKind
        var direct: [Certificate] = []
        for (source, der) in byKind[.certificate] ?? [] {
            if let c = try? addCertificate(der: der, source: source), c.isSelfIssued { direct.append(c) }
        }
        if directCSCAsSignMasterLists {
            for c in direct where c.isCA { acceptAsMasterListSignerRoot(c) }
        }
        for (source, der) in byKind[.masterList] ?? [] { _ = try? addMasterList(der, source: source) }
        for (source, der) in byKind[.crl] ?? [] { _ = try? addCRL(der: der, source: source) }
        return Array(refused[before...])
    }

    /// Loads a master-list signer root (DER or PEM) from a file and pins it.
    public mutating func pinMasterListSignerRoot(path: String) throws(TrustError) {
        for der in try TrustMaterialFiles.derBlocks(try TrustLimits.readRegularFile(path)) {
            try TrustLimits.check(der.count, kind: .certificate, step: .certificate)
            pinMasterListSignerRoot(try Certificate(der: der))
        }
    }

    // MARK: Lookups (indexed)

    /// Every certificate held.
    public var certificates: [Certificate] { entries.map(\.certificate) }
    /// CSCA (CA) certificates held.
    public var cscas: [Certificate] { entries.filter(\.isCSCA).map(\.certificate) }
    public var isEmpty: Bool { entries.isEmpty }
    public var hasCSCAs: Bool { entries.contains(where: \.isCSCA) }

    /// Whether the store holds a CSCA of `country` (an MRZ issuing state such as "UTO" or "D", or a certificate's
    /// countryName such as "UT"; compared by `CountryCodes.matches`). Tells "no trust anchor for this state" from
    /// "this state's CSCAs are here and did not issue the signer".
    public func holdsCSCA(ofCountry country: String) -> Bool {
        entries.contains { e in
            guard e.isCSCA, let c = e.certificate.subject.country else { return false }
            return CountryCodes.matches(certificateCountry: c, issuingState: country)
        }
    }

    public func certificates(subjectKeyIdentifier ski: [UInt8]) -> [Certificate] {
        (indexBySKI[ByteKey(ski)] ?? []).map { entries[$0].certificate }
    }

    /// CSCAs whose subject is `subject`.
    public func cscas(subject: DistinguishedName) -> [Certificate] {
        (indexBySubject[subject.canonical] ?? []).filter { entries[$0].isCSCA }.map { entries[$0].certificate }
    }

    public func certificates(subject: DistinguishedName) -> [Certificate] {
        (indexBySubject[subject.canonical] ?? []).map { entries[$0].certificate }
    }

    /// Certificates a CMS SignerIdentifier names (for `CMSSignedData.verifySigner`).
    public func certificates(matching sid: SignerIdentifier) -> [Certificate] {
        switch sid {
        case .subjectKeyIdentifier(let ski):
            return certificates(subjectKeyIdentifier: ski)
        case .issuerAndSerialNumber(let issuer, let serial):
            return (indexByIssuerSerial[Self.issuerSerialKey(issuer, serial)] ?? []).map { entries[$0].certificate }
        }
    }

    static func issuerSerialKey(_ issuer: DistinguishedName, _ serial: [UInt8]) -> IssuerSerialKey {
        IssuerSerialKey(issuer: issuer.canonical, serial: ByteKey(Array(serial.drop { $0 == 0 })))
    }

    /// CSCAs that may have issued `certificate`: by its authority key identifier through the SKI
    /// index, then by issuer name (CSCAs without a subject key identifier).
    public func issuerCandidates(for certificate: Certificate) -> [Certificate] {
        var out: [Certificate] = []
        if let aki = certificate.authorityKeyIdentifier {
            out = (indexBySKI[ByteKey(aki)] ?? []).filter { entries[$0].isCSCA }.map { entries[$0].certificate }
        }
        for c in cscas(subject: certificate.issuer) where !out.contains(c) {
            if let aki = certificate.authorityKeyIdentifier, let ski = c.subjectKeyIdentifier, aki != ski { continue }
            out.append(c)
        }
        return out
    }

    /// Verified CRLs issued under `issuer`'s name.
    public func crls(issuer: DistinguishedName) -> [CRLEntry] {
        (crlIndexByIssuer[issuer.canonical] ?? []).map { crlEntries[$0] }.filter { $0.status == .verified }
    }

    /// All CRLs held whose issuer name is `issuer`, whatever their status.
    public func allCRLs(issuer: DistinguishedName) -> [CRLEntry] {
        (crlIndexByIssuer[issuer.canonical] ?? []).map { crlEntries[$0] }
    }
}

/// Bytes as a dictionary key. An `[UInt8]` key feeds the hasher byte by byte, which dominated adding
/// a master list's certificates (keys of 1–2 KB, re-hashed on every resize). This one hashes the length
/// and at most the last 64 bytes as one block — for a certificate, its signature, which differs between
/// any two certificates — while equality still compares every byte, so a shared tail only costs a probe.
struct ByteKey: Hashable, Sendable {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: $0.suffix(64))) }
    }
    static func == (a: ByteKey, b: ByteKey) -> Bool { a.bytes == b.bytes }
}

/// A certificate named by issuer and serial number (RFC 5652 §10.2.4 IssuerAndSerialNumber): the
/// issuer's canonical name and the serial's magnitude (leading zero octets dropped).
struct IssuerSerialKey: Hashable, Sendable {
    let issuer: String
    let serial: ByteKey
}
