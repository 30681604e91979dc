import Foundation
import Testing

@testable import StepUp

/// The step-up result's verdict, spoken through the reader's rule: never accepted without the identity fields.
@Suite struct StepUpVerdictTests {
    func plan() throws -> ReadIDPlan {
        let op = try SignicatOperationDocument.decode(
            Data(
                Seeds.readIDOperation(
                    url: "https://readid.example.test/odata/v1",
                    processId: "0dca14cf-957d-46d9-b374-520f9c650859",
                    extra: ""
                ).utf8)
        ).operation
        return try ReadIDPlan.make(for: op)
    }

    @Test func acceptedWithoutIdentityFieldsIsNotAccepted() throws {
        let result = ReadIDChipResult(
            status: .accepted, chipVerification: .succeeded, chipCloneDetection: .succeeded,
            document: ReadIDDocumentFields(), evidence: EvidenceReference())
        let (doc, warnings) = StepUpResultDocument.make(plan: try plan(), result: result)
        #expect(doc.status != .accepted)
        #expect(warnings.map(\.code).contains("identity-missing"), "\(warnings)")
    }

    @Test func acceptedWithoutDateOfBirthIsNotAccepted() throws {
        let fields = ReadIDDocumentFields(
            documentType: "PASSPORT", documentCode: "P", documentNumber: "L898902C3",
            issuingCountry: "UTO", nationality: "UTO", dateOfBirth: nil,
            dateOfExpiry: "2032-04-15", gender: "F", firstName: "ANNA MARIA", lastName: "ERIKSSON")
        let result = ReadIDChipResult(
            status: .accepted, chipVerification: .succeeded, chipCloneDetection: .succeeded,
            document: fields, evidence: EvidenceReference())
        #expect(StepUpResultDocument.make(plan: try plan(), result: result).0.status != .accepted)
    }

    @Test func acceptedWithTheIdentityFieldsStaysAccepted() throws {
        let fields = ReadIDDocumentFields(
            documentType: "PASSPORT", documentCode: "P", documentNumber: "L898902C3",
            issuingCountry: "UTO", nationality: "UTO", dateOfBirth: "1974-08-12",
            dateOfExpiry: "2032-04-15", gender: "F", firstName: "", lastName: "ERIKSSON")
        let result = ReadIDChipResult(
            status: .accepted, chipVerification: .succeeded, chipCloneDetection: .notAvailable,
            document: fields, evidence: EvidenceReference())
        let (doc, warnings) = StepUpResultDocument.make(plan: try plan(), result: result)
        #expect(doc.status == .accepted)
        #expect(warnings.isEmpty)
    }
}
