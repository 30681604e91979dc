/// The status of one verification check (docs/architecture.md §4.2 `verification.checks[].status`).
public enum CheckStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// The check ran and the document satisfied it.
    case passed
    /// The check ran and the document failed it.
    case failed
    /// What the check needs is absent from the document (e.g. no EF.CardSecurity was read).
    case notPresent
    /// The check could not run (e.g. no CRL in the trust store); `detail` says why.
    case notChecked
}

/// The names of the checks of docs/architecture.md §4.2 (a contract: never renamed).
public enum CheckName: String, Sendable, Hashable, Codable, CaseIterable {
    case dataGroupHashes, unlistedDataGroups, sodSignature, documentSignerCertificate, cscaChain
    case cscaCountryMatchesIssuingState, revocation, cardSecuritySignature
    case chipAuthentication, paceChipAuthenticationMapping, activeAuthentication
    /// DG1, and DG2 when the SOD lists it, read and matching the SOD (who the holder is).
    case identityDataGroups
    /// Which data groups the SOD lists were not read, and why (e.g. a read restricted by `--files`).
    case readScope
    /// The document's date of expiry (DG1, hash-checked) against the validation time.
    case documentValidity
    /// The access control used against what the signed data (DG14, EF.CardSecurity) list: BAC, or a weaker PACE,
    /// although a stronger protocol is listed (docs/report.md, "Downgrade").
    case downgrade
}

/// One check of the verification report: `{name, status, detail}` (docs/architecture.md §4.2). `detail` is one
/// line, for people, naming files, algorithms and certificates, never secrets.
public struct VerificationCheck: Sendable, Hashable, Codable, CustomStringConvertible {
    public var name: CheckName
    public var status: CheckStatus
    public var detail: String

    public init(_ name: CheckName, _ status: CheckStatus, _ detail: String) {
        self.name = name
        self.status = status
        // One line: line breaks become spaces. Most details hold none of the bytes a line break can
        // start with (LF…CR, and 0x85/0xA8/0xA9 of NEL, LS, PS), so they skip the Character-wise split.
        let mayBreak = detail.utf8.contains { (0x0A...0x0D).contains($0) || $0 == 0x85 || $0 == 0xA8 || $0 == 0xA9 }
        self.detail = mayBreak ? detail.split(whereSeparator: \.isNewline).joined(separator: " ") : detail
    }

    public static func passed(_ name: CheckName, _ detail: String) -> Self { Self(name, .passed, detail) }
    public static func failed(_ name: CheckName, _ detail: String) -> Self { Self(name, .failed, detail) }
    public static func notPresent(_ name: CheckName, _ detail: String) -> Self { Self(name, .notPresent, detail) }
    public static func notChecked(_ name: CheckName, _ detail: String) -> Self { Self(name, .notChecked, detail) }

    public var description: String { "\(name.rawValue): \(status.rawValue) — \(detail)" }
}
