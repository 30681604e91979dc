import ASN1TLV
import MRTDAccessControl
import MRTDDocument
import MRTDTrust

/// The `downgrade` check (docs/report.md, "Downgrade"): the access control used, compared with what the document
/// lists. EF.CardAccess is not signed — a chip (or anything between it and the reader) can withhold it, garble it or
/// offer less in it — so what counts is what DG14 (hash-checked) and EF.CardSecurity (signature passed) list;
/// ICAO 9303-11 puts the PACEInfos there for this very reason. A downgrade is BAC although PACE is listed
/// (signed, or in EF.CardAccess and then refused), or a PACE protocol weaker than a signed one
/// (`AccessControl.isWeaker`: cipher, key agreement, chip-authentication mapping).
extension DocumentVerifier {
    /// The first words of the detail of a downgrade the caller accepted (`--allow-bac-fallback`).
    public static let acceptedDowngradeDetail = "downgrade accepted by the caller (--allow-bac-fallback): "

    static func downgradeCheck(_ f: Facts) -> VerificationCheck {
        let e = f.evidence
        guard let used = e.accessControl else {
            return .notChecked(.downgrade, "the bundle does not record which access control the read used")
        }
        // What the signed data list, with where it says so.
        var signed: [(source: String, protocol: PACEProtocol)] = []
        if let dg14 = f.dg14 { signed += AccessControl.usablePACE(dg14).map { ("DG14", $0.protocol) } }
        if f.cardSecurityVouched,
            let cs = f.files[.cardSecurity].flatMap({ try? SecurityInfos.parseCardSecurity($0) })
        {
            signed += AccessControl.usablePACE(cs).map { ("EF.CardSecurity", $0.protocol) }
        }
        let cardAccess = f.files[.cardAccess].flatMap { try? SecurityInfos.parseCardAccess($0) }
        let unsigned = cardAccess.map { AccessControl.usablePACE($0).map(\.protocol) } ?? []

        var finding: String? = nil
        let usedName: String
        if used.protocol == .bac {
            usedName = "BAC (3DES)"
            if let s = signed.first {
                finding =
                    "BAC ran although \(s.source) (signed) lists PACE (\(s.protocol.name)); EF.CardAccess "
                    + (f.files[.cardAccess] == nil
                        ? "was not read" : cardAccess == nil ? "does not parse" : "offers \(describe(unsigned))")
            } else if let u = unsigned.first {
                finding = "BAC ran although EF.CardAccess offers PACE (\(u.name)): the chip refused it"
            }
        } else {
            guard let p = used.protocolOID.flatMap(ASN1ObjectIdentifier.init).flatMap(PACEProtocol.init)
            else {
                return .failed(.downgrade, "PACE ran with a protocol this verifier does not know")
            }
            usedName = p.name
            if let s = signed.first(where: { AccessControl.isWeaker(p, than: $0.protocol) }) {
                finding = "PACE ran with \(p.name), weaker than \(s.protocol.name) that \(s.source) (signed) lists"
            }
        }
        guard e.live else {
            // Offline the protocol is only as the bundle records it: a recorded downgrade still counts.
            if let finding { return .failed(.downgrade, "the live read recorded: " + finding) }
            return .notChecked(
                .downgrade,
                "offline the access control is only as the bundle records it (\(usedName)); no downgrade recorded")
        }
        if let finding {
            if e.downgradeAccepted { return .notChecked(.downgrade, acceptedDowngradeDetail + finding) }
            return .failed(.downgrade, finding)
        }
        if f.dg14 == nil && (f.listed.contains(14) || f.files[.dg14] != nil) {
            // DG14 may list PACE, but it is not here or not vouched for: nothing to compare with
            let why = f.files[.dg14] == nil ? "DG14 \(f.absence(.dg14))" : f.dg14Error ?? f.unvouched(.dg14)
            return .notChecked(.downgrade, "\(usedName): the PACEInfos of DG14 cannot be compared: \(why)")
        }
        if signed.isEmpty && used.protocol == .bac {
            return .passed(
                .downgrade,
                "BAC: neither EF.CardAccess nor the signed data (DG14\(f.cardSecurityVouched ? ", EF.CardSecurity" : "")) list PACE"
            )
        }
        return .passed(
            .downgrade,
            "\(usedName): no stronger protocol is listed in "
                + (signed.isEmpty ? "EF.CardAccess (no signed PACEInfo to compare with)" : "the signed data"))
    }

    /// "PACE-…, PACE-…" or "no usable PACE".
    static func describe(_ protocols: [PACEProtocol]) -> String {
        protocols.isEmpty ? "no usable PACE" : "only " + protocols.map(\.name).joined(separator: ", ")
    }
}
