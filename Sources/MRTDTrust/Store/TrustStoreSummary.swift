public import ASN1TLV
import CanonicalJSON
import Foundation
import MRTDCrypto

extension TrustStore {
    /// What a trust configuration yields (`emrtd trust`): CSCAs per country with validity, master
    /// lists with their signer and verification result, CRLs, and every refused entry with its
    /// reason. `Codable` for `--json`; `text` for people. Times are ISO 8601 UTC.
    public struct Summary: Sendable, Hashable, Codable {
        public struct CertificateInfo: Sendable, Hashable, Codable {
            public var subject: String
            public var issuer: String
            public var country: String?
            public var serial: String
            public var notBefore: String
            public var notAfter: String
            /// "valid", "expired" or "notYetValid" at the summary's time (expired entries are kept).
            public var validity: String
            public var isLinkCertificate: Bool
            public var subjectKeyIdentifier: String?
            public var signatureAlgorithm: String
            public var sources: [String]
        }
        public struct Country: Sendable, Hashable, Codable {
            public var country: String
            public var cscas: [CertificateInfo]
            public var validCount: Int
        }
        public struct MasterList: Sendable, Hashable, Codable {
            public var source: String
            /// "verified" or "refused".
            public var result: String
            public var detail: String
            public var signer: String?
            public var signerSerial: String?
            public var signerValidity: String?
            public var root: String?
            public var signingTime: String?
            public var certificates: Int?
            public var added: Int?
            public var duplicates: Int?
            public var unreadableEntries: [String]?
        }
        public struct CRL: Sendable, Hashable, Codable {
            public var source: String
            public var issuer: String
            public var thisUpdate: String
            public var nextUpdate: String?
            public var revokedCount: Int
            /// "verified" or "issuerNotFound".
            public var status: String
            public var verifiedBy: String?
            /// nextUpdate is before the summary's time.
            public var stale: Bool
        }
        public struct Refused: Sendable, Hashable, Codable {
            public var source: String
            public var kind: String?
            public var code: String
            public var step: String
            public var reason: String
        }

        public var time: String
        /// The roots pinned with `pinMasterListSignerRoot` (`--ml-signer-root`); CSCAs given directly are CSCAs.
        public var masterListSignerRoots: [CertificateInfo]
        public var countries: [Country]
        /// Non-CA certificates held (document signers usable for CMS signer lookups).
        public var otherCertificates: [CertificateInfo]
        public var masterLists: [MasterList]
        public var crls: [CRL]
        public var refused: [Refused]
        public var duplicateCount: Int

        /// Pretty-printed JSON with sorted keys (for `emrtd trust --json`).
        public func json() throws -> String {
            String(decoding: try CanonicalJSON.data(self), as: UTF8.self)
        }

        /// A plain-text rendering, one fact per line.
        public var text: String {
            var out: [String] = []
            out.append("Trust store at \(time)")
            if !masterListSignerRoots.isEmpty {
                out.append("Master-list signer roots (\(masterListSignerRoots.count)):")
                for r in masterListSignerRoots {
                    out.append("  \(r.subject) serial \(r.serial) \(r.notBefore) … \(r.notAfter) [\(r.validity)]")
                }
            }
            out.append("Master lists (\(masterLists.count)):")
            for m in masterLists {
                if m.result == "verified" {
                    out.append(
                        "  \(m.source): verified, signer \(m.signer ?? "?") [\(m.signerValidity ?? "?")], root \(m.root ?? "?"), signed \(m.signingTime ?? "(no signingTime)"), \(m.certificates ?? 0) certificates (\(m.added ?? 0) new, \(m.duplicates ?? 0) duplicates)"
                    )
                } else {
                    out.append("  \(m.source): REFUSED — \(m.detail)")
                }
            }
            let total = countries.reduce(0) { $0 + $1.cscas.count }
            out.append("CSCAs: \(total) in \(countries.count) countries (\(duplicateCount) duplicate additions merged)")
            for c in countries {
                out.append("  \(c.country): \(c.cscas.count) (\(c.validCount) valid)")
                for x in c.cscas {
                    out.append(
                        "    \(x.subject) serial \(x.serial) \(x.notBefore) … \(x.notAfter) [\(x.validity)]\(x.isLinkCertificate ? " link" : "")"
                    )
                }
            }
            if !otherCertificates.isEmpty {
                out.append("Other certificates (\(otherCertificates.count)):")
                for x in otherCertificates { out.append("  \(x.subject) serial \(x.serial) [\(x.validity)]") }
            }
            out.append("CRLs (\(crls.count)):")
            for c in crls {
                out.append(
                    "  \(c.source): \(c.issuer), thisUpdate \(c.thisUpdate), nextUpdate \(c.nextUpdate ?? "none")\(c.stale ? " (stale)" : ""), \(c.revokedCount) revoked, \(c.status == "verified" ? "signature verified by \(c.verifiedBy ?? "?")" : "issuer CSCA not in the store: not used")"
                )
            }
            out.append("Refused (\(refused.count)):")
            for r in refused { out.append("  \(r.source): \(r.reason)") }  // the codes are in the JSON form
            return out.joined(separator: "\n")
        }
    }

    static func info(_ c: Certificate, at t: ASN1Time, sources: [String]) -> Summary.CertificateInfo {
        Summary.CertificateInfo(
            subject: c.subject.description, issuer: c.issuer.description, country: c.subject.country,
            serial: c.serialHex, notBefore: c.notBefore.description, notAfter: c.notAfter.description,
            validity: t < c.notBefore ? "notYetValid" : (c.notAfter < t ? "expired" : "valid"),
            isLinkCertificate: c.isLinkCertificate, subjectKeyIdentifier: c.subjectKeyIdentifier.map { Hex.encode($0) },
            signatureAlgorithm: c.signatureAlgorithm.description, sources: sources)
    }

    /// The summary at time `t` (validity flags are relative to it).
    public func summary(at t: ASN1Time) -> Summary {
        var byCountry: [String: [Summary.CertificateInfo]] = [:]
        var others: [Summary.CertificateInfo] = []
        for e in entries {
            let i = Self.info(e.certificate, at: t, sources: e.sources)
            if e.isCSCA {
                byCountry[e.certificate.subject.country ?? "??", default: []].append(i)
            } else {
                others.append(i)
            }
        }
        let countries = byCountry.keys.sorted().map { k in
            let list = byCountry[k]!.sorted { ($0.notBefore, $0.serial) < ($1.notBefore, $1.serial) }
            return Summary.Country(country: k, cscas: list, validCount: list.filter { $0.validity == "valid" }.count)
        }
        var lists: [Summary.MasterList] = masterLists.map { m in
            Summary.MasterList(
                source: m.source, result: "verified",
                detail: "signature verified; signer chains to the pinned root",
                signer: m.signer.subject.description, signerSerial: m.signer.serialHex,
                signerValidity: m.signer.isValid(at: t) ? "valid" : "expired or not yet valid at \(t)",
                root: m.root.subject.description, signingTime: m.signingTime?.description,
                certificates: m.certificateCount, added: m.added, duplicates: m.duplicates,
                unreadableEntries: m.unreadableEntries)
        }
        for r in refused where r.kind == .masterList {
            lists.append(Summary.MasterList(source: r.source, result: "refused", detail: r.error.description))
        }
        let crls = crlEntries.map { c in
            Summary.CRL(
                source: c.source, issuer: c.crl.issuer.description, thisUpdate: c.crl.thisUpdate.description,
                nextUpdate: c.crl.nextUpdate?.description, revokedCount: c.crl.revokedCertificates.count,
                status: c.status.rawValue, verifiedBy: c.verifiedBy.map { "\($0.subject) serial \($0.serialHex)" },
                stale: c.crl.nextUpdate.map { $0 < t } ?? false)
        }
        return Summary(
            time: t.description,
            masterListSignerRoots: pinnedMasterListSignerRoots.map { Self.info($0, at: t, sources: []) },
            countries: countries, otherCertificates: others, masterLists: lists, crls: crls,
            refused: refused.map {
                Summary.Refused(
                    source: $0.source, kind: $0.kind?.rawValue, code: $0.error.code.rawValue,
                    step: $0.error.step.rawValue, reason: $0.error.reason)
            },
            duplicateCount: duplicateCount)
    }
}
