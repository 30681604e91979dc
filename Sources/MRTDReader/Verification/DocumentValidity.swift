public import ASN1TLV
public import MRTDDocument
public import MRTDTrust

/// Whether the document may be used at the validation time: its date of expiry, from DG1's MRZ read and
/// matching its hash in the SOD, against the same validation time the certificate checks use (`--at` for
/// `emrtd verify`, now for a read). A genuine expired document is not forged: its chip data still verify, so
/// it is `inconclusive` (not valid for use), never `accepted` unless the caller allows expired documents and
/// never `rejected` for that alone (docs/report.md "Verdict").
public struct DocumentValidity: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        /// Valid through `expiry` (the day itself included).
        case valid(expiry: CalendarDate)
        case expired(expiry: CalendarDate)
        /// DG1 missing, not vouched for by the SOD, or without a usable date of expiry.
        case notChecked(String)
    }

    public var state: State
    public var validationTime: ASN1Time

    /// The expiry date, when it was checked.
    public var expiry: CalendarDate? {
        switch state {
        case .valid(let d), .expired(let d): d
        case .notChecked: nil
        }
    }

    /// From DG1 as read (`vouched`: DG1 matches its hash in the SOD; otherwise nothing on it is believed).
    public init(dg1: [UInt8]?, vouched: Bool, whyNot: @autoclosure () -> String, validationTime: ASN1Time) {
        self.validationTime = validationTime
        guard let dg1, vouched else {
            state = .notChecked(whyNot())
            return
        }
        let mrz: MRZ
        do { mrz = try DG1File(bytes: dg1).mrz } catch {
            state = .notChecked("DG1 does not parse: \(error.description)")
            return
        }
        let reference = CalendarDate(year: validationTime.year, month: validationTime.month, day: validationTime.day)
        guard mrz.dateOfExpiry.isPlausible, let expiry = mrz.dateOfExpiry.resolvedAsExpiryDate(reference: reference)
        else {
            state = .notChecked("the MRZ gives no usable date of expiry (\(mrz.dateOfExpiry.raw))")
            return
        }
        state = reference > expiry ? .expired(expiry: expiry) : .valid(expiry: expiry)
    }

    /// The `documentValidity` check: `failed` when expired (also when the caller allows it: the detail says so
    /// and `VerdictRule` does not hold it against the verdict), `notChecked` when DG1 does not allow the check.
    public func check(allowExpired: Bool) -> VerificationCheck {
        switch state {
        case .valid(let d):
            return .passed(
                .documentValidity,
                "valid until \(d) (DG1, matching the SOD) at the validation time \(validationTime)")
        case .expired(let d):
            let allowed = allowExpired ? "; allowed: the caller accepts expired documents (allowExpired)" : ""
            return .failed(
                .documentValidity,
                "the document expired on \(d) (DG1, matching the SOD), before the validation time \(validationTime)\(allowed)"
            )
        case .notChecked(let why):
            return .notChecked(.documentValidity, why)
        }
    }
}

extension DocumentVerifier {
    static func documentValidity(_ f: Facts, validationTime: ASN1Time) -> DocumentValidity {
        DocumentValidity(
            dg1: f.files[.dg1], vouched: f.vouched.contains(.dg1),
            whyNot: f.files[.dg1] == nil ? "DG1 \(f.absence(.dg1))" : f.unvouched(.dg1),
            validationTime: validationTime)
    }
}
