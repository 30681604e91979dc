import ASN1TLV
import CanonicalJSON
public import Foundation
import MRTDCrypto
import MRTDDocument

/// Saves a document profile to a directory and loads it back, so that `emrtd simulate --profile DIR` can serve
/// a saved document. Layout:
/// - `profile.json` — the manifest (schema `emrtd.profile/1`): MRZ access data, CAN, link behaviour, file and key names;
/// - one file per LDS file, named as in evidence bundles (`EF.SOD.bin`, `DG1.bin`, `EF.CardAccess.bin`, …);
/// - `ca-key.p8`, `aa-key.p8` — chip private keys as PKCS#8 DER (RFC 5208; EC keys with explicit
///   ECParameters, DH keys with X9.42 DomainParameters), written with mode 0600;
/// - `csca.der`, `document-signer.der`, `csca.crl`, `masterlist.ml`, `masterlist-signer.der` when saved from a
///   `GeneratedDocument` (trust material for `--trust`).
public enum ProfileStore {
    public static let manifestName = "profile.json"
    public static let schema = "emrtd.profile/1"

    struct Manifest: Codable {
        struct Link: Codable {
            var extendedLength: Bool
            var supportsSFI: Bool
            var maxReadLength: Int?
            var requiresParameterIdInMSE: Bool
            var atr: String
        }
        struct ChipAuthentication: Codable {
            var agreement: String
            var keyFile: String
            var keyId: Int?
            var parameterId: Int?
        }
        struct Trust: Codable {
            var csca: String
            var documentSigner: String
            var crl: String
            var masterList: String
            var masterListSigner: String
        }
        var schema: String
        var name: String
        var documentNumber: String
        var dateOfBirth: String
        var dateOfExpiry: String
        var can: String
        var mrz: String
        var supportsBAC: Bool
        var files: [String: String]
        var link: Link
        var chipAuthentication: ChipAuthentication?
        var activeAuthenticationKeyFile: String?
        var trust: Trust?
        var forgery: String?
    }

    /// Saves a generated document (profile and trust material).
    public static func save(_ document: GeneratedDocument, to directory: URL) throws(GeneratorError) {
        let trust = Manifest.Trust(
            csca: "csca.der", documentSigner: "document-signer.der", crl: "csca.crl",
            masterList: "masterlist.ml", masterListSigner: "masterlist-signer.der")
        try save(document.profile, to: directory, trust: trust, forgery: document.forgery?.rawValue)
        try write(document.cscaCertificate, directory, trust.csca)
        try write(document.documentSignerCertificate, directory, trust.documentSigner)
        try write(document.crl, directory, trust.crl)
        try write(document.masterList, directory, trust.masterList)
        try write(document.masterListSignerCertificate, directory, trust.masterListSigner)
    }

    /// Saves a profile (files, manifest, chip keys).
    public static func save(_ profile: DocumentProfile, to directory: URL) throws(GeneratorError) {
        try save(profile, to: directory, trust: nil, forgery: nil)
    }

    static func save(_ profile: DocumentProfile, to directory: URL, trust: Manifest.Trust?, forgery: String?)
        throws(GeneratorError)
    {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw GeneratorError(
                .io, step: "profile.save", "cannot create \(directory.path): \(error.localizedDescription)")
        }
        var files: [String: String] = [:]
        for (file, bytes) in profile.files.sorted(by: { $0.key < $1.key }) {
            files[file.rawValue] = file.bundleFileName
            try write(bytes, directory, file.bundleFileName)
        }
        var ca: Manifest.ChipAuthentication? = nil
        if let key = profile.keys.chipAuthentication {
            let der: [UInt8]
            let agreement: String
            switch key.agreement {
            case .ecdh(let curve, let privateKey, let publicKey):
                der = ecPKCS8(curve: curve, scalar: privateKey.bytes, publicKey: publicKey)
                agreement = "ECDH"
            case .dh(let group, let privateKey, _):
                der = dhPKCS8(group: group, x: privateKey.bytes)
                agreement = "DH"
            }
            try write(der, directory, "ca-key.p8", secret: true)
            ca = .init(agreement: agreement, keyFile: "ca-key.p8", keyId: key.keyId, parameterId: key.parameterId)
        }
        var aaFile: String? = nil
        if let aa = profile.keys.activeAuthentication {
            try write(aa.pkcs8.bytes, directory, "aa-key.p8", secret: true)
            aaFile = "aa-key.p8"
        }
        let link = Manifest.Link(
            extendedLength: profile.link.extendedLength, supportsSFI: profile.link.supportsSFI,
            maxReadLength: profile.link.maxReadLength,
            requiresParameterIdInMSE: profile.link.requiresParameterIdInMSE, atr: Hex.encode(profile.link.atr))
        let manifest = Manifest(
            schema: schema, name: profile.name, documentNumber: profile.documentNumber,
            dateOfBirth: profile.dateOfBirth, dateOfExpiry: profile.dateOfExpiry, can: profile.can,
            mrz: profile.mrz, supportsBAC: profile.supportsBAC, files: files, link: link,
            chipAuthentication: ca, activeAuthenticationKeyFile: aaFile, trust: trust, forgery: forgery)
        do {
            try write([UInt8](try CanonicalJSON.data(manifest)), directory, manifestName)
        } catch let e as GeneratorError {
            throw e
        } catch {
            throw GeneratorError(.io, step: "profile.save", "cannot encode the manifest: \(error)")
        }
    }

    /// Paths of the trust material saved beside a profile (nil entries when not saved).
    public struct TrustFiles: Sendable, Hashable {
        public var csca: URL?
        public var documentSigner: URL?
        public var crl: URL?
        public var masterList: URL?
        public var masterListSigner: URL?
    }

    /// Whether `directory` holds a saved profile.
    public static func isProfileDirectory(_ directory: URL) -> Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent(manifestName).path)
    }

    /// Loads a saved profile.
    public static func load(from directory: URL) throws(GeneratorError) -> DocumentProfile {
        let m = try manifest(directory)
        var files: [LDSFile: [UInt8]] = [:]
        for (name, fileName) in m.files {
            guard let file = LDSFile(rawValue: name) else {
                throw GeneratorError(.malformedManifest, step: "profile.load", "unknown LDS file '\(name)'")
            }
            files[file] = try read(directory, fileName)
        }
        var keys = ChipKeys()
        if let ca = m.chipAuthentication {
            let der = try read(directory, ca.keyFile)
            let agreement: ChipAuthenticationKey.Agreement
            switch ca.agreement {
            case "ECDH": agreement = try parseECPKCS8(der)
            case "DH": agreement = try parseDHPKCS8(der)
            default:
                throw GeneratorError(.malformedManifest, step: "profile.load", "unknown CA agreement '\(ca.agreement)'")
            }
            keys.chipAuthentication = ChipAuthenticationKey(
                agreement: agreement, keyId: ca.keyId, parameterId: ca.parameterId)
        }
        if let aaFile = m.activeAuthenticationKeyFile {
            let der = try read(directory, aaFile)
            keys.activeAuthentication = try withCrypto("profile.load.aaKey") { () throws(CryptoError) -> PrivateKey in
                try PrivateKey(pkcs8: der)
            }
        }
        guard let atr = Hex.decode(m.link.atr) else {
            throw GeneratorError(.malformedManifest, step: "profile.load", "ATR is not hex")
        }
        let link = LinkBehaviour(
            extendedLength: m.link.extendedLength, supportsSFI: m.link.supportsSFI,
            maxReadLength: m.link.maxReadLength, requiresParameterIdInMSE: m.link.requiresParameterIdInMSE,
            atr: atr)
        return DocumentProfile(
            name: m.name, files: files, documentNumber: m.documentNumber, dateOfBirth: m.dateOfBirth,
            dateOfExpiry: m.dateOfExpiry, can: m.can, mrz: m.mrz, supportsBAC: m.supportsBAC,
            keys: keys, link: link)
    }

    /// The trust material saved with a generated document.
    public static func trustFiles(in directory: URL) throws(GeneratorError) -> TrustFiles {
        let m = try manifest(directory)
        guard let t = m.trust else { return TrustFiles() }
        func url(_ n: String) -> URL { directory.appendingPathComponent(n) }
        return TrustFiles(
            csca: url(t.csca), documentSigner: url(t.documentSigner), crl: url(t.crl),
            masterList: url(t.masterList), masterListSigner: url(t.masterListSigner))
    }

    static func manifest(_ directory: URL) throws(GeneratorError) -> Manifest {
        let bytes = try read(directory, manifestName)
        let m: Manifest
        do {
            m = try JSONDecoder().decode(Manifest.self, from: Data(bytes))
        } catch {
            throw GeneratorError(.malformedManifest, step: "profile.load", "\(manifestName) does not parse: \(error)")
        }
        guard m.schema == schema else {
            throw GeneratorError(.malformedManifest, step: "profile.load", "unsupported schema '\(m.schema)'")
        }
        return m
    }

    // MARK: - Files

    static func write(_ bytes: [UInt8], _ directory: URL, _ name: String, secret: Bool = false) throws(GeneratorError) {
        let url = directory.appendingPathComponent(name)
        do {
            try Data(bytes).write(to: url, options: .atomic)
            if secret { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path) }
        } catch {
            throw GeneratorError(.io, step: "profile.save", "cannot write \(name): \(error.localizedDescription)")
        }
    }

    static func read(_ directory: URL, _ name: String) throws(GeneratorError) -> [UInt8] {
        guard !name.contains("/"), !name.hasPrefix(".") else {
            throw GeneratorError(.malformedManifest, step: "profile.load", "file name '\(name)' leaves the directory")
        }
        do {
            return [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
        } catch {
            throw GeneratorError(.io, step: "profile.load", "cannot read \(name): \(error.localizedDescription)")
        }
    }

    // MARK: - PKCS#8 for chip agreement keys

    /// RFC 5208 PrivateKeyInfo with RFC 5915 ECPrivateKey `SEQUENCE { version 1, privateKey OCTET STRING,
    /// publicKey [1] BIT STRING }`; the algorithm carries explicit ECParameters (RFC 3279 §2.3.5).
    static func ecPKCS8(curve: ECCurve, scalar: [UInt8], publicKey: [UInt8]) -> [UInt8] {
        let ecPrivateKey = DER.sequence(
            DER.integer(1), DER.octetString(scalar), DER.explicit(1, DER.bitString(publicKey)))
        return DER.sequence(
            DER.integer(0),
            DER.sequence(
                DER.objectIdentifier("1.2.840.10045.2.1"),
                SubjectPublicKeyInfoEncoder.explicitECParameters(curve)),
            DER.octetString(ecPrivateKey))
    }

    /// RFC 5208 PrivateKeyInfo for X9.42 DH: algorithm dhpublicnumber with DomainParameters, privateKey
    /// OCTET STRING { INTEGER x }.
    static func dhPKCS8(group: DHGroup, x: [UInt8]) -> [UInt8] {
        var params = [DER.integer(unsigned: group.p), DER.integer(unsigned: group.g)]
        if let q = group.q { params.append(DER.integer(unsigned: q)) }
        return DER.sequence(
            DER.integer(0),
            DER.sequence(DER.objectIdentifier("1.2.840.10046.2.1"), DER.sequence(params)),
            DER.octetString(DER.integer(unsigned: x)))
    }

    static func parseECPKCS8(_ der: [UInt8]) throws(GeneratorError) -> ChipAuthenticationKey.Agreement {
        do {
            let info = try TLVParser.parse(der, rules: .der)
            let params = try info.child(at: 1).child(at: 1)
            let p = try params.child(at: 1).child(at: 1).unsignedIntegerBytes()
            let a = try params.child(at: 2).child(at: 0).octetStringValue()
            let b = try params.child(at: 2).child(at: 1).octetStringValue()
            let g = try params.child(at: 3).octetStringValue()
            let n = try params.child(at: 4).unsignedIntegerBytes()
            let h = try params.child(at: 5).unsignedIntegerBytes()
            let ecKey = try TLVParser.parse(try info.child(at: 2).octetStringValue(), rules: .der)
            let scalar = try ecKey.child(at: 1).octetStringValue()
            let curve = try withCrypto("profile.load.caKey") { () throws(CryptoError) -> ECCurve in
                try ECCurve(p: p, a: a, b: b, generator: g, order: n, cofactor: h)
            }
            let point: [UInt8]
            if let pub = ecKey.child(0xA1), let bits = try? pub.child(at: 0).bitStringValue() {
                point = bits
            } else {
                point = try withCrypto("profile.load.caKey") { () throws(CryptoError) -> [UInt8] in
                    try curve.multiplyGenerator(by: scalar)
                }
            }
            return .ecdh(curve: curve, privateKey: SecretBytes(scalar), publicKey: point)
        } catch let e as GeneratorError {
            throw e
        } catch {
            throw GeneratorError(
                .malformedManifest, step: "profile.load.caKey", "EC PKCS#8 key does not parse: \(error)")
        }
    }

    static func parseDHPKCS8(_ der: [UInt8]) throws(GeneratorError) -> ChipAuthenticationKey.Agreement {
        do {
            let info = try TLVParser.parse(der, rules: .der)
            let params = try info.child(at: 1).child(at: 1)
            let p = try params.child(at: 0).unsignedIntegerBytes()
            let g = try params.child(at: 1).unsignedIntegerBytes()
            let q = params.children.count > 2 ? try params.child(at: 2).unsignedIntegerBytes() : nil
            let x = try TLVParser.parse(try info.child(at: 2).octetStringValue(), rules: .der).unsignedIntegerBytes()
            let group: DHGroup
            if let known = DHGroup.RFC5114.allCases.map({ DHGroup($0) }).first(where: { $0.p == p && $0.g == g }) {
                group = known
            } else {
                group = try withCrypto("profile.load.caKey") { () throws(CryptoError) -> DHGroup in
                    try DHGroup(p: p, g: g, q: q)
                }
            }
            // INTEGER drops leading zero octets; the key is drawn as wide as q (or p), so restore that width
            let width = (group.q ?? group.p).count
            let secret = SecretBytes(x.count < width ? [UInt8](repeating: 0, count: width - x.count) + x : x)
            let y = try withCrypto("profile.load.caKey") { () throws(CryptoError) -> [UInt8] in
                try group.publicKey(for: secret)
            }
            return .dh(group: group, privateKey: secret, publicKey: y)
        } catch let e as GeneratorError {
            throw e
        } catch {
            throw GeneratorError(
                .malformedManifest, step: "profile.load.caKey", "DH PKCS#8 key does not parse: \(error)")
        }
    }
}
