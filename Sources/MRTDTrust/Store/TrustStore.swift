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

    /// Roots the user pinned for master-list signers (ICAO 9303-12 §9: the master-list signer
    /// certificate is issued by a CSCA the relying party already trusts).
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

    private var pinnedRootKeys: Set<ByteKey> = []

    public init(masterListSignerRoots: [Certificate] = []) {
        self.masterListSignerRoots = []
        for root in masterListSignerRoots { pinMasterListSignerRoot(root) }
    }

    // MARK: Adding

    /// Pins a master-list signer root (it is not a CSCA for documents unless also added as one).
    public mutating func pinMasterListSignerRoot(_ root: Certificate) {
        // indexed: a PEM of thousands of self-signed CSCAs pins each of them (a linear `contains` was quadratic)
        if pinnedRootKeys.insert(ByteKey(root.encoded)).inserted { masterListSignerRoots.append(root) }
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
        var files: [String] = []
        for path in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                throw TrustError(.unreadable, .trustStore, "no such file or folder: \(path)")
            }
            if isDir.boolValue {
                var found: [String] = []
                var tooMany = false
                if let e = FileManager.default.enumerator(
                    at: URL(fileURLWithPath: path), includingPropertiesForKeys: [.isRegularFileKey])
                {
                    for case let url as URL in e
                    where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                        guard files.count + found.count < TrustLimits.maxLoadFiles else {
                            tooMany = true
                            break
                        }
                        found.append(url.path)
                    }
                }
                if tooMany {
                    _ = refuse(
                        path,
                        TrustError(
                            .limitExceeded, .trustStore,
                            "more than \(TrustLimits.maxLoadFiles) files in one load (TrustLimits.maxLoadFiles): the folder is not read"
                        ))
                    continue
                }
                files += found.sorted()
            } else {
                files.append(path)
            }
        }
        let before = refused.count
        var byKind: [FileKind: [(String, [UInt8])]] = [:]
        // everything read in one load is held until it is added (certificates first, then lists, then CRLs): bounded
        var budget = TrustLimits.maxLoadBytes
        for path in files {
            let blocks: [[UInt8]]
            do {
                let bytes: [UInt8]
                if budget < TrustLimits.maxFileBytes {
                    bytes = try TrustLimits.readRegularFile(
                        path, limit: budget, limitName: "TrustLimits.maxLoadBytes, what one load reads in all")
                } else {
                    bytes = try TrustLimits.readRegularFile(path)
                }
                budget -= bytes.count
                blocks = try Self.derBlocks(bytes)
            } catch {
                _ = refuse(path, error)
                continue
            }
            if blocks.isEmpty { _ = refuse(path, TrustError(.unreadable, .trustStore, "empty file")) }
            for (n, der) in blocks.enumerated() {
                let source = blocks.count > 1 ? "\(path)#\(n + 1)" : path
                if let kind = Self.detectKind(der) {
                    do { try TrustLimits.check(der.count, kind: kind, step: .trustStore) } catch {
                        _ = refuse(source, error, kind: kind)
                        continue
                    }
                    byKind[kind, default: []].append((source, der))
                } else {
                    _ = refuse(
                        source, TrustError(.unreadable, .trustStore, "not a certificate, CRL or CSCA master list"))
                }
            }
        }
        var direct: [Certificate] = []
        for (source, der) in byKind[.certificate] ?? [] {
            if let c = try? addCertificate(der: der, source: source), c.isSelfIssued { direct.append(c) }
        }
        if directCSCAsSignMasterLists {
            for c in direct where c.isCA { pinMasterListSignerRoot(c) }
        }
        for (source, der) in byKind[.masterList] ?? [] { _ = try? addMasterList(der, source: source) }
        for (source, der) in byKind[.crl] ?? [] { _ = try? addCRL(der: der, source: source) }
        return Array(refused[before...])
    }

    /// Loads a master-list signer root (DER or PEM) from a file and pins it.
    public mutating func pinMasterListSignerRoot(path: String) throws(TrustError) {
        for der in try Self.derBlocks(try TrustLimits.readRegularFile(path)) {
            try TrustLimits.check(der.count, kind: .certificate, step: .certificate)
            pinMasterListSignerRoot(try Certificate(der: der))
        }
    }

    /// Splits PEM text into DER blocks; returns the input itself when it is not PEM. A PEM file of more than
    /// `TrustLimits.maxPEMBytes` or `maxPEMBlocks` blocks is refused before any block is decoded.
    static func derBlocks(_ bytes: [UInt8]) throws(TrustError) -> [[UInt8]] {
        // DER starts with its tag (0x30, SEQUENCE, for all three kinds); PEM is text holding "-----BEGIN ".
        // Only what may be text is validated as UTF-8 (a master list is close to a megabyte).
        if bytes.first == 0x30 { return [bytes] }
        let blocks = countPEMBlocks(bytes)
        if blocks > 0 {
            guard bytes.count <= TrustLimits.maxPEMBytes else {
                throw TrustError(
                    .limitExceeded, .trustStore,
                    "PEM text of \(bytes.count) bytes exceeds the limit of \(TrustLimits.maxPEMBytes) bytes (TrustLimits.maxPEMBytes)"
                )
            }
            guard blocks <= TrustLimits.maxPEMBlocks else {
                throw TrustError(
                    .limitExceeded, .trustStore,
                    "PEM text holds \(blocks) blocks, more than the limit of \(TrustLimits.maxPEMBlocks) (TrustLimits.maxPEMBlocks)"
                )
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self), text.contains("-----BEGIN ") else {
            return bytes.isEmpty ? [] : [bytes]
        }
        var out: [[UInt8]] = []
        var body: String? = nil
        for line in text.split(whereSeparator: \.isNewline) {
            let l = line.trimmingCharacters(in: .whitespaces)
            if l.hasPrefix("-----BEGIN ") {
                body = ""
            } else if l.hasPrefix("-----END ") {
                if let b = body, let d = Data(base64Encoded: b) { out.append([UInt8](d)) }
                body = nil
            } else if body != nil, !l.contains(":") {
                body! += l
            }
        }
        return out
    }

    /// How many "-----BEGIN " lines `bytes` holds (a byte scan: nothing decoded).
    static func countPEMBlocks(_ bytes: [UInt8]) -> Int {
        let marker = Array("-----BEGIN ".utf8)
        var count = 0
        bytes.withUnsafeBufferPointer { b in
            var i = 0
            let last = b.count - marker.count
            while i <= last {
                if b[i] == 0x2D, b[i + 1] == 0x2D, b[i + 5] == 0x42 {
                    var k = 0
                    while k < marker.count, b[i + k] == marker[k] { k += 1 }
                    if k == marker.count {
                        count += 1
                        i += k
                        continue
                    }
                }
                i += 1
            }
        }
        return count
    }

    /// Detects a master list (ContentInfo signedData with id-icao-cscaMasterList), a CRL
    /// (TBSCertList: a Time after the issuer) or a certificate (TBSCertificate: Validity after the issuer).
    static func detectKind(_ der: [UInt8]) -> FileKind? {
        guard let node = try? TLVParser.parse(der, rules: .ber), node.tag == 0x30, node.children.count >= 2 else {
            return nil
        }
        if node.children[0].tag == 0x06 { return isSignedData(node) ? .masterList : nil }
        let tbs = node.children[0]
        guard tbs.tag == 0x30 else { return nil }
        let fields = tbs.children.filter { $0.tag != 0xA0 && $0.tag != 0x02 }
        // fields: signature, issuer, then Validity (certificate) or thisUpdate (CRL)
        guard fields.count >= 3 else { return nil }
        switch fields[2].tag {
        case 0x17, 0x18: return .crl
        case 0x30: return .certificate
        default: return nil
        }
    }

    /// A ContentInfo holding SignedData (whatever its eContentType: `addMasterList` then says
    /// precisely what is wrong with a SignedData that is not a master list).
    private static func isSignedData(_ node: TLVNode) -> Bool {
        (try? node.children[0].objectIdentifierValue()) == TrustOID.signedData
    }

    // MARK: Lookups (indexed)

    /// Every certificate held.
    public var certificates: [Certificate] { entries.map(\.certificate) }
    /// CSCA (CA) certificates held.
    public var cscas: [Certificate] { entries.filter(\.isCSCA).map(\.certificate) }
    public var isEmpty: Bool { entries.isEmpty }
    public var hasCSCAs: Bool { entries.contains(where: \.isCSCA) }

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
