import Testing
import MRTDReader
@testable import EMRTDCLI

/// The text output shows the personal data groups (issue 15 item 2), with the labels of the HTML report.
@Suite struct PersonalDataPresentationTests {
    static func report() -> ReadReport {
        var d = ReadReport.Document(documentCode: "P", issuingState: "UTO", documentNumber: "L898902C3", surname: "ERIKSSON",
                                    givenNames: "ANNA MARIA", nationality: "UTO", dateOfBirth: "1974-08-12", sex: "F",
                                    dateOfExpiry: "2031-04-15", optionalData: "ZE184226B", personalNumber: "ZE184226B", mrz: "")
        d.additionalPersonalDetails = ReadReport.AdditionalPersonalDetails(
            fullName: ReadReport.Name(primary: "ERIKSSON", secondary: "ANNA MARIA"), otherNames: [ReadReport.Name(primary: "ERIKSSON", secondary: "ANNA")],
            fullDateOfBirth: ReadReport.DateValue(value: "1974-08-12", format: "iso8601"), placeOfBirth: ["ZENITH", "UTOPIA"],
            address: ["123 MAPLE STREET", "ZENITH", "UTOPIA"], telephone: "+1 555 0100")
        d.additionalDocumentDetails = ReadReport.AdditionalDocumentDetails(
            issuingAuthority: "UTOPIA PASSPORT OFFICE", dateOfIssue: ReadReport.DateValue(value: "2021<<<<", format: "raw"),
            imageOfFront: ReadReport.ImageInfo(format: "jpeg", width: 64, height: 40, size: 896, sha256: ""))
        d.personsToNotify = [ReadReport.PersonToNotify(name: ReadReport.Name(primary: "ERIKSSON", secondary: "LARS"), telephone: "+1 555 0101")]
        d.displayedSignatures = [ReadReport.ImageInfo(format: "jpeg2000", width: nil, height: nil, size: 1000, sha256: "")]
        var r = ReadReport()
        r.document = d
        return r
    }

    @Test func textShowsEveryPersonalDataGroup() {
        let text = Presentation.text(Self.report())
        for expected in ["Additional personal details (DG11)", "Full name", "ERIKSSON, ANNA MARIA", "Other name", "ERIKSSON, ANNA",
                         "Full date of birth", "1974-08-12", "Place of birth", "ZENITH, UTOPIA", "123 MAPLE STREET, ZENITH, UTOPIA",
                         "+1 555 0100", "Additional document details (DG12)", "UTOPIA PASSPORT OFFICE",
                         "Date of issue", "2021<<<< (as stored)", "Image of the front", "JPEG, 64×40, 896 bytes",
                         "Persons to notify (DG16)", "ERIKSSON, LARS", "+1 555 0101",
                         "Displayed signature or usual mark (DG7)", "JPEG 2000, 1000 bytes"] {
            #expect(text.contains(expected), "\(expected) missing")
        }
        #expect(!text.contains("Displayed portrait"))    // no DG5 in this report
    }

    @Test func labelsAreAligned() throws {
        let lines = PersonalDataPresentation.lines(try #require(Self.report().document))
        let dg11 = lines.drop { $0 != "Additional personal details (DG11)" }.dropFirst().prefix { !$0.isEmpty }
        #expect(dg11.count == 6)
        #expect(Set(dg11.map { l in l.firstIndex(where: { $0 != " " }).map { l.distance(from: l.startIndex, to: $0) } }) == [2])
        let valueStarts = Set(dg11.map { l -> Int in
            let afterLabel = l.dropFirst(2).firstRange(of: "  ")!.upperBound
            let v = l[afterLabel...].firstIndex(where: { $0 != " " })!
            return l.distance(from: l.startIndex, to: v)
        })
        #expect(valueStarts.count == 1, "values start in one column")
    }
}
