public import Foundation
public import MRTDReader

extension ReadIDChipResult {
    /// The ReadID chip result of a finished read: its report (document fields), verdict and evidence bundle.
    /// Shared by `emrtd stepup run` and `emrtd serve`'s `POST /v1/stepup`.
    /// The verdict is mapped by `VerdictMapping`'s exhaustive switches (never by raw values).
    public init(report: ReadReport, verification: VerificationOutcome, bundle: URL?) {
        let d = report.document
        let fields = ReadIDDocumentFields(
            documentType: d.map { Self.documentType($0.documentCode) }, documentCode: d?.documentCode,
            documentNumber: d?.documentNumber, issuingCountry: d?.issuingState, nationality: d?.nationality,
            dateOfBirth: d?.dateOfBirth, dateOfExpiry: d?.dateOfExpiry, gender: d?.sex, firstName: d?.givenNames,
            lastName: d?.surname, personalIdentificationNumber: d?.personalNumber)
        self.init(
            verification, document: fields,
            evidence: EvidenceReference(
                bundlePath: bundle?.path,
                reportPath: bundle?.appendingPathComponent(EvidenceBundle.reportFile).path))
    }

    /// ReadID's document type from the MRZ document code.
    public static func documentType(_ code: String) -> String {
        switch code.first {
        case "P": return "PASSPORT"
        case "I", "A", "C": return "ID_CARD"
        case "V": return "VISA"
        default: return "OTHER"
        }
    }
}
