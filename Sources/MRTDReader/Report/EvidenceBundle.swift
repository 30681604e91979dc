import ASN1TLV
import CanonicalJSON
import FaceImaging
public import Foundation
import Glibc
import MRTDAccessControl
import MRTDCrypto
public import MRTDDocument
import MRTDTrust

/// The evidence bundle (docs/architecture.md §4.3): every file byte for byte as the chip sent it, the clone-detection
/// transcripts needed to re-check them offline, the face image and `report.json`.
///
/// Layout: `EF.SOD.bin`, `DG1.bin`, …, `EF.CardAccess.bin`, `EF.CardSecurity.bin`, `clone-detection.json`,
/// `face.jpg` (always, when DG2 holds a face that can be shown) and `face.jp2` (the stored JPEG 2000), `report.json`.
public enum EvidenceBundle {
    public static let cloneDetectionFile = "clone-detection.json"
    public static let reportFile = "report.json"

    public struct BundleError: Error, CustomStringConvertible {
        public var description: String
    }

    struct CloneDetectionRecord: Codable {
        struct CA: Codable {
            var outcome: String
            var detail: String
        }
        struct AA: Codable {
            var challenge: String
            var signature: String
            var publicKeyInfo: String
            var signatureAlgorithm: String?
        }
        struct Curve: Codable { var p, a, b, generator, order, cofactor: String }
        struct CAM: Codable {
            var encryptedChipAuthenticationData: String
            var chipAuthenticationData: String
            var chipMappingPublicKey: String
            var curve: Curve
        }
        /// The access control the live read used (for the offline `downgrade` check; quoted, never trusted).
        struct AccessControlUsed: Codable {
            var `protocol`: String
            var password: String
            var protocolOID: String?
            var parameterId: Int?
            var fellBackToBAC: Bool
        }
        var schema = "emrtd.clone-detection/1"
        var accessControl: AccessControlUsed?
        var chipAuthentication: CA
        var activeAuthentication: AA?
        var activeAuthenticationFailure: String?
        var activeAuthenticationNotPerformed: String?
        var chipAuthenticationMapping: CAM?
    }

    /// The face image file name for a format.
    public static func faceImageName(_ format: ImageFormat) -> String {
        switch format {
        case .jpeg2000: return "face.jp2"
        case .png: return "face.png"
        default: return "face.jpg"
        }
    }

    /// Why a folder cannot take a new bundle.
    public enum FolderProblem: Sendable, Equatable {
        /// `--out ''`.
        case empty
        /// `/` (or a path that resolves to it).
        case root
        /// Exists and is not a folder.
        case notAFolder
        /// A folder that already holds files: a bundle never mixes with what was there.
        case notEmpty
        /// The parent folder does not exist or is not writable.
        case parentNotWritable
    }

    /// Whether `path` can take a new bundle: it is absent (its parent writable) or an empty folder. Checked before
    /// the document is read, and again when writing.
    public static func checkFolder(_ path: String) -> FolderProblem? {
        guard !path.isEmpty else { return .empty }
        let url = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        if url.path == "/" { return .root }
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: url.path, isDirectory: &isDir) {
            guard isDir.boolValue else { return .notAFolder }
            guard let items = try? fm.contentsOfDirectory(atPath: url.path) else { return .parentNotWritable }
            guard items.isEmpty else { return .notEmpty }
            return fm.isWritableFile(atPath: url.path) ? nil : .parentNotWritable
        }
        // Really try: permission bits say little for root, or on /proc, /sys and read-only mounts.
        guard mkdir(url.path, 0o700) == 0 else { return .parentNotWritable }
        rmdir(url.path)
        return nil
    }

    /// Writes a whole bundle — the files and transcripts of a read, `report` as `report.json`, and `extraFiles`
    /// — completely or not at all: everything goes into a new temporary folder (0700, files 0600: they hold
    /// personal data) beside `directory`, which is then renamed to `directory`. `directory` must be absent or
    /// an empty folder (a bundle never mixes with a previous read's files).
    public static func write(
        _ result: ReadResult, report: ReadReport? = nil, extraFiles: [String: [UInt8]] = [:],
        to directory: URL
    ) throws {
        if let problem = checkFolder(directory.path) {
            throw BundleError(description: "\(directory.path) cannot take a bundle (\(problem))")
        }
        let fm = FileManager.default
        let target = directory.standardizedFileURL
        let parent = target.deletingLastPathComponent()
        let temporary = parent.appendingPathComponent(".\(target.lastPathComponent).partial-\(UUID().uuidString)")
        try fm.createDirectory(
            at: temporary, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        do {
            func put(_ bytes: [UInt8], _ name: String) throws {
                let url = temporary.appendingPathComponent(name)
                guard fm.createFile(atPath: url.path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
                else {
                    throw BundleError(description: "cannot write \(name)")
                }
            }
            for (f, bytes) in result.files { try put(bytes, f.bundleFileName) }
            if let face = result.document.faceImage {
                // The bytes as stored (face.jpg or face.jp2); for JPEG 2000 also face.jpg, decoded and re-encoded,
                // when it decodes (the report's faceImage.error says why when it does not).
                try put(face.imageData, faceImageName(face.format))
                if face.format == .jpeg2000, let jpeg = try? DisplayImage.displayJPEG(from: face.imageData) {
                    try put(jpeg, faceImageName(.jpeg))
                }
            }
            let record = cloneRecord(CloneDetectionEvidence(result))
            try put(Array(try CanonicalJSON.data(record)), cloneDetectionFile)
            if let report { try put(Array(try CanonicalJSON.data(report)), reportFile) }
            for (name, bytes) in extraFiles.sorted(by: { $0.key < $1.key }) { try put(bytes, name) }
            // An empty folder given by the caller is replaced by the finished bundle.
            // rmdir, never a recursive removal: it fails if anything appeared in the folder meanwhile.
            if fm.fileExists(atPath: target.path), rmdir(target.path) != 0 {
                throw BundleError(description: "\(target.path) is no longer empty")
            }
            try fm.moveItem(at: temporary, to: target)
        } catch {
            try? fm.removeItem(at: temporary)
            throw error
        }
    }

    static func cloneRecord(_ e: CloneDetectionEvidence) -> CloneDetectionRecord {
        let ca: CloneDetectionRecord.CA
        switch e.chipAuthentication {
        case .succeeded(let name, let keyId):
            ca = .init(outcome: "succeeded", detail: name + (keyId.map { " key \($0)" } ?? ""))
        case .failed(let r): ca = .init(outcome: "failed", detail: r)
        case .notAvailable: ca = .init(outcome: "notAvailable", detail: "")
        case .notPerformed(let r): ca = .init(outcome: "notPerformed", detail: r)
        }
        let aa = e.activeAuthentication.map {
            CloneDetectionRecord.AA(
                challenge: Hex.encode($0.challenge), signature: Hex.encode($0.signature),
                publicKeyInfo: Hex.encode($0.publicKeyInfo), signatureAlgorithm: $0.signatureAlgorithm)
        }
        let cam = e.chipAuthenticationMapping.map { c in
            CloneDetectionRecord.CAM(
                encryptedChipAuthenticationData: Hex.encode(c.encryptedChipAuthenticationData),
                chipAuthenticationData: Hex.encode(c.chipAuthenticationData),
                chipMappingPublicKey: Hex.encode(c.chipMappingPublicKey),
                curve: .init(
                    p: Hex.encode(c.curve.p), a: Hex.encode(c.curve.a), b: Hex.encode(c.curve.b),
                    generator: Hex.encode(c.curve.generator), order: Hex.encode(c.curve.order),
                    cofactor: Hex.encode(c.curve.cofactor)))
        }
        let ac = e.accessControl.map {
            CloneDetectionRecord.AccessControlUsed(
                protocol: $0.protocol.rawValue, password: $0.passwordType.description, protocolOID: $0.protocolOID,
                parameterId: $0.parameterId, fellBackToBAC: $0.fellBackToBAC)
        }
        return CloneDetectionRecord(
            accessControl: ac, chipAuthentication: ca, activeAuthentication: aa,
            activeAuthenticationFailure: e.activeAuthenticationFailure,
            activeAuthenticationNotPerformed: e.activeAuthenticationNotPerformed,
            chipAuthenticationMapping: cam)
    }

    /// Loads a bundle: the files and what the live read recorded of clone detection. The record is only
    /// evidence to judge (`DocumentVerifier` decides what counts): offline, Chip Authentication and PACE-CAM
    /// are quoted, never re-proven, so the PACE-CAM data are not rebuilt (no curve is parsed).
    ///
    /// Every file is read from inside `directory` itself, never through a symbolic link (`O_NOFOLLOW`): a link
    /// — wherever it points — is refused, naming it, so that a bundle cannot make `verify` hash and report a
    /// file outside it.
    public static func load(from directory: URL) throws -> (files: [LDSFile: [UInt8]], evidence: CloneDetectionEvidence)
    {
        let dir = try openFolder(directory)
        defer { close(dir) }
        var files: [LDSFile: [UInt8]] = [:]
        for f in LDSFile.allCases {
            // a regular file within its kind's cap, read in bounded chunks (a FIFO would block, a sparse file
            // reporting gigabytes would be allocated): docs/reliability.md, "Limits"
            do {
                files[f] = try TrustLimits.readRegularFile(
                    named: f.bundleFileName, inDirectory: dir, limit: LDSLimits.maximumLength(of: f),
                    limitName: "LDSLimits.\(LDSLimits.limitName(of: f))")
            } catch {
                throw BundleError(description: "\(f.bundleFileName): \(error.reason)")
            }
        }
        guard !files.isEmpty else {
            throw BundleError(description: "\(directory.path) holds no eMRTD files (EF.SOD.bin, DG1.bin, …)")
        }
        var evidence = CloneDetectionEvidence(
            chipAuthentication: .notAvailable, activeAuthentication: nil,
            chipAuthenticationMapping: nil, live: false)
        let recorded: [UInt8]?
        do {
            recorded = try TrustLimits.readRegularFile(
                named: cloneDetectionFile, inDirectory: dir, limit: 1 << 20,
                limitName: "1 MiB for \(cloneDetectionFile)")
        } catch {
            throw BundleError(description: "\(cloneDetectionFile): \(error.reason)")
        }
        if let recorded {
            let d = Data(recorded)
            let r: CloneDetectionRecord
            do { r = try JSONDecoder().decode(CloneDetectionRecord.self, from: d) } catch {
                throw BundleError(description: "\(cloneDetectionFile) is malformed: \(error)")
            }
            evidence.chipAuthentication = recordedOutcome(r.chipAuthentication)
            evidence.accessControl = r.accessControl.flatMap(recordedAccessControl)
            if let aa = r.activeAuthentication {
                guard let c = Hex.decode(aa.challenge), let s = Hex.decode(aa.signature),
                    let k = Hex.decode(aa.publicKeyInfo)
                else {
                    throw BundleError(description: "\(cloneDetectionFile): bad hex in activeAuthentication")
                }
                evidence.activeAuthentication = ActiveAuthenticationTranscript(
                    challenge: c, signature: s, publicKeyInfo: k,
                    signatureAlgorithm: aa.signatureAlgorithm)
            }
            evidence.activeAuthenticationFailure = r.activeAuthenticationFailure
            evidence.activeAuthenticationNotPerformed = r.activeAuthenticationNotPerformed
            evidence.chipAuthenticationMappingRecorded = r.chipAuthenticationMapping != nil
        } else if files[.dg15] != nil {
            evidence.activeAuthenticationNotPerformed =
                "the bundle has no \(cloneDetectionFile) (no Active Authentication transcript)"
        }
        return (files, evidence)
    }

    /// The bundle folder, open for `openat` (the folder as given may itself be a link; what is inside it may not).
    static func openFolder(_ directory: URL) throws -> Int32 {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw BundleError(description: "cannot open \(directory.path): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    /// What the bundle's face files are, compared with the face re-derived from `files`' DG2 (which the caller
    /// verifies): `face.jp2` or a stored-JPEG `face.jpg` must be DG2's image bytes exactly, and a JPEG 2000 face's
    /// `face.jpg` its re-encoding (`DisplayImage.displayJPEG`, deterministic). One line per face file that is not the
    /// document's (replaced after the read, or a link): what `emrtd verify` puts in `warnings`; empty when every
    /// face file present matches. `verify` never shows a face file: its report and HTML page take the face from DG2.
    public static func faceFileProblems(in directory: URL, files: [LDSFile: [UInt8]]) -> [String] {
        guard let dir = try? openFolder(directory) else { return [] }
        defer { close(dir) }
        let face = LDSDocument(files: files).faceImage
        var problems: [String] = []
        for name in [faceImageName(.jpeg), faceImageName(.jpeg2000), faceImageName(.png)] {
            let bytes: [UInt8]?
            do {
                bytes = try TrustLimits.readRegularFile(
                    named: name, inDirectory: dir, limit: ImageLimits.standard.maxInputBytes,
                    limitName: "ImageLimits.standard.maxInputBytes")
            } catch {
                problems.append("\(name) is not the document's face: \(error.reason)")
                continue
            }
            guard let bytes else { continue }
            guard let face else {
                problems.append("\(name) is not the document's face: the bundle holds no DG2 face image")
                continue
            }
            let expected: [UInt8]?
            if name == faceImageName(face.format) {
                expected = face.imageData
            } else if name == faceImageName(.jpeg) && face.format == .jpeg2000 {
                expected = try? DisplayImage.displayJPEG(from: face.imageData)
            } else {
                expected = nil
            }
            if expected != bytes {
                problems.append(
                    "\(name) is not the document's face: it differs from the face DG2 holds (the report shows DG2's)")
            }
        }
        return problems
    }

    /// The live read's access control as the record states it (quoted offline, never trusted); nil when the record
    /// names no protocol this verifier knows.
    static func recordedAccessControl(_ r: CloneDetectionRecord.AccessControlUsed) -> AccessControlFacts? {
        let password = PACEPasswordType.allCases.first { $0.description == r.password } ?? .mrz
        switch r.protocol {
        case AccessControlProtocol.bac.rawValue:
            return AccessControlFacts(
                protocol: .bac, passwordType: .mrz, mapping: nil, keyAgreement: nil, cipher: .tripleDES,
                parameterId: nil, protocolOID: nil, fellBackToBAC: r.fellBackToBAC)
        case AccessControlProtocol.pace.rawValue:
            guard let p = r.protocolOID.flatMap(ASN1ObjectIdentifier.init).flatMap(PACEProtocol.init) else {
                return nil
            }
            return AccessControlFacts(
                protocol: .pace, passwordType: password, mapping: p.mapping, keyAgreement: p.keyAgreement,
                cipher: p.cipher, parameterId: r.parameterId, protocolOID: p.oid.dotted, fellBackToBAC: false)
        default:
            return nil
        }
    }

    /// The live read's Chip Authentication outcome as the record states it (quoted offline, never trusted).
    static func recordedOutcome(_ ca: CloneDetectionRecord.CA) -> ChipAuthenticationOutcome {
        switch ca.outcome {
        case "succeeded": return .succeeded(protocolName: ca.detail, keyId: nil)
        case "failed": return .failed(ca.detail)
        case "notAvailable": return .notAvailable
        case "notPerformed": return .notPerformed(ca.detail)
        default: return .notPerformed("an unknown outcome")
        }
    }
}
