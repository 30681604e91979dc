import Foundation
import Testing

/// The text output shows the personal data groups of the generated Utopia specimen, with
/// the labels of the HTML report (`PersonalDataSection`).
@Suite struct PersonalDataPresentationTests {
    @Test func demoTextShowsEveryPersonalDataGroup() throws {
        let r = try Emrtd.run(["demo"])
        #expect(r.status == 0, "\(r.stderr)")
        let text = r.stdout
        for expected in [
            "Displayed portrait (DG5)", "Displayed signature or usual mark (DG7)", "JPEG, 60×80,",
            "Additional personal details (DG11)", "Full name", "ERIKSSON, ANNA MARIA", "Other name", "ERIKSSON, ANNA",
            "Full date of birth", "1974-08-12", "Place of birth", "ZENITH, UTOPIA", "Address",
            "123 MAPLE STREET, ZENITH, UTOPIA", "Telephone", "+1 555 0100", "Profession", "SPECIMEN", "Title",
            "Personal summary", "SPECIMEN DOCUMENT ONLY", "Proof of citizenship", "JPEG, 64×40,",
            "Other valid travel documents", "D23145890", "Custody information",
            "Additional document details (DG12)", "Issuing authority", "UTOPIA PASSPORT OFFICE", "Date of issue",
            "2021-04-16", "Other person", "ERIKSSON, LARS", "Endorsements and observations", "Tax or exit requirements",
            "Image of the front", "Image of the rear", "Personalization time", "2021-04-16T09:30:00",
            "Personalization device", "UTO-PERSO-0001",
            "Persons to notify (DG16)", "Person 2", "ERIKSSON, EVA MARIA", "Telephone 2", "+1 555 0102",
            "7 HARBOUR ROAD, PORT ZENITH, UTOPIA", "Recorded 1",
        ] {
            #expect(text.contains(expected), "\(expected) missing")
        }
        // the values of one section start in one column
        let lines = text.components(separatedBy: "\n")
        let dg11 = lines.drop { $0 != "Additional personal details (DG11)" }.dropFirst().prefix { !$0.isEmpty }
        #expect(dg11.count == 14)
        let valueColumns = Set(
            dg11.compactMap { l -> Int? in
                guard let gap = l.dropFirst(2).firstRange(of: "  ") else { return nil }
                return l[gap.upperBound...].firstIndex { $0 != " " }.map { l.distance(from: l.startIndex, to: $0) }
            })
        #expect(valueColumns.count == 1, "\(valueColumns)")
    }
}
