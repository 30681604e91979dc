import ASN1TLV
import DocumentGenerator
import Foundation
import MRTDDocument
import MRTDReader
import MRTDTestSupport
import Testing

/// Every personal data group of a generated Utopia specimen, read from the virtual chip, lands in the report's
/// `document` as docs/report.md describes it; broken data groups become warnings, never a crash.
@Suite struct PersonalDataReportTests {
    /// One read of the default profile, shared by the tests of this suite.
    actor Cache {
        static let shared = Cache()
        var value: (report: ReadReport, result: ReadResult)?
        func get() async throws -> (report: ReadReport, result: ReadResult) {
            if let value { return value }
            let doc = try VirtualDocument("pace-gm-brainpool-aes128")
            let r = try await doc.read()
            let v = (ReportBuilder.report(for: r, verification: doc.verify(r)), r)
            value = v
            return v
        }
    }

    @Test func everyDG11FieldOfTheSpecimen() async throws {
        let s = Specimen.utopiaPassport
        let report = try await Cache.shared.get().report
        let p = try #require(report.document?.additionalPersonalDetails)
        #expect(p.fullName == ReadReport.Name(primary: "ERIKSSON", secondary: "ANNA MARIA"))
        #expect(
            p.otherNames == [
                ReadReport.Name(primary: "ERIKSSON", secondary: "ANNA"),
                ReadReport.Name(primary: "ERIKSSON", secondary: "MARIA"),
            ])
        #expect(p.personalNumber == s.personalNumber)
        #expect(p.fullDateOfBirth == ReadReport.DateValue(value: "1974-08-12", format: "iso8601"))
        #expect(p.placeOfBirth == ["ZENITH", "UTOPIA"])
        #expect(p.address == ["123 MAPLE STREET", "ZENITH", "UTOPIA"])
        #expect(p.telephone == s.telephone && p.profession == s.profession && p.title == s.title)
        #expect(p.personalSummary == s.personalSummary && p.custodyInformation == s.custodyInformation)
        #expect(p.otherValidTravelDocumentNumbers == s.otherTravelDocuments)
        let proof = try #require(p.proofOfCitizenship)
        #expect(
            proof.format == "jpeg" && proof.width == 64 && proof.height == 40 && proof.size > 100
                && proof.sha256.count == 64)
    }

    @Test func everyDG12FieldOfTheSpecimen() async throws {
        let s = Specimen.utopiaPassport
        let report = try await Cache.shared.get().report
        let p = try #require(report.document?.additionalDocumentDetails)
        #expect(p.issuingAuthority == s.issuingAuthority)
        #expect(p.dateOfIssue == ReadReport.DateValue(value: "2021-04-16", format: "iso8601"))
        #expect(p.otherPersons == [ReadReport.Name(primary: "ERIKSSON", secondary: "LARS")])
        #expect(p.endorsementsAndObservations == s.endorsements && p.taxOrExitRequirements == s.taxOrExitRequirements)
        #expect(p.imageOfFront?.format == "jpeg" && p.imageOfRear?.format == "jpeg")
        #expect(p.imageOfFront?.sha256 != p.imageOfRear?.sha256)
        #expect(p.personalizationTime == ReadReport.DateValue(value: "2021-04-16T09:30:00", format: "iso8601"))
        #expect(p.personalizationDeviceSerialNumber == s.personalizationDeviceSerial)
    }

    @Test func dg16AndDisplayedImages() async throws {
        let report = try await Cache.shared.get().report
        let d = try #require(report.document)
        let persons = try #require(d.personsToNotify)
        #expect(persons.count == 2)
        #expect(
            persons[0]
                == ReadReport.PersonToNotify(
                    dateRecorded: ReadReport.DateValue(value: "2021-04-16", format: "iso8601"),
                    name: ReadReport.Name(primary: "ERIKSSON", secondary: "LARS"),
                    telephone: "+1 555 0101", address: ["123 MAPLE STREET", "ZENITH", "UTOPIA"]))
        #expect(persons[1].name == ReadReport.Name(primary: "ERIKSSON", secondary: "EVA MARIA"))
        #expect(d.displayedPortraits?.map(\.format) == ["jpeg"] && d.displayedPortraits?.first?.width == 60)
        #expect(d.displayedSignatures?.map(\.format) == ["jpeg"] && d.displayedSignatures?.first?.height == 40)
        #expect(report.warnings.isEmpty, "\(report.warnings)")
    }

    /// The JSON names of docs/report.md, and a date that says which format it is in.
    @Test func jsonCarriesTheDocumentedFields() async throws {
        let report = try await Cache.shared.get().report
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        for key in [
            "additionalPersonalDetails", "additionalDocumentDetails", "personsToNotify", "displayedPortraits",
            "displayedSignatures", "fullName", "otherNames", "personalNumber", "fullDateOfBirth", "placeOfBirth",
            "address",
            "telephone", "profession", "title", "personalSummary", "proofOfCitizenship",
            "otherValidTravelDocumentNumbers",
            "custodyInformation", "issuingAuthority", "dateOfIssue", "otherPersons", "endorsementsAndObservations",
            "taxOrExitRequirements", "imageOfFront", "imageOfRear", "personalizationTime",
            "personalizationDeviceSerialNumber", "dateRecorded",
        ] {
            #expect(json.contains("\"\(key)\":"), "\(key) missing")
        }
        #expect(json.contains(#""schema":"emrtd.report\/1""#) || json.contains(#""schema":"emrtd.report/1""#))
        let back = try JSONDecoder().decode(ReadReport.self, from: Data(json.utf8))
        #expect(back == report)
    }

    /// A report from before these fields decodes (fields were only added).
    @Test func olderReportsStillDecode() async throws {
        var r = try await Cache.shared.get().report
        r.document?.additionalPersonalDetails = nil
        r.document?.additionalDocumentDetails = nil
        r.document?.personsToNotify = nil
        r.document?.displayedPortraits = nil
        r.document?.displayedSignatures = nil
        let json = String(decoding: try JSONEncoder().encode(r), as: UTF8.self)
        #expect(!json.contains("additionalPersonalDetails") && !json.contains("personsToNotify"))
        #expect(try JSONDecoder().decode(ReadReport.self, from: Data(json.utf8)) == r)
    }

    @Test func rawDatesSayTheyAreRaw() async throws {
        var files = try await Cache.shared.get().result.files
        files[.dg11] = TLVWriter.encode(0x6B, TLVWriter.encode(0x5F2B, Array("1974<<<<".utf8)))
        var r = ReadReport()
        ReportBuilder.fill(
            &r, files: files, facts: [:], reference: ASN1Time(year: 2026, month: 1, day: 1), faceImagePath: nil)
        #expect(
            r.document?.additionalPersonalDetails?.fullDateOfBirth
                == ReadReport.DateValue(value: "1974<<<<", format: "raw"))
    }

    /// Hostile data groups: the report names the broken file and goes on; nothing of the broken file appears.
    @Test func brokenDataGroupsBecomeWarnings() async throws {
        var files = try await Cache.shared.get().result.files
        let dg11 = try #require(files[.dg11])
        files[.dg11] = Array(dg11.dropLast(3))  // truncated
        files[.dg12] = TLVWriter.encode(0x6B, [])  // wrong tag
        files[.dg16] = TLVWriter.encode(0x70, TLVWriter.encode(0x02, [0x64]))  // count 100
        files[.dg5] = TLVWriter.encode(
            0x65, TLVWriter.encode(0x02, [0x02]) + TLVWriter.encode(0x5F40, [0xFF, 0xD8, 0xFF]))
        var r = ReadReport()
        ReportBuilder.fill(
            &r, files: files, facts: [:], reference: ASN1Time(year: 2026, month: 1, day: 1), faceImagePath: nil)
        let d = try #require(r.document)
        #expect(d.additionalPersonalDetails == nil && d.additionalDocumentDetails == nil && d.personsToNotify == nil)
        #expect(r.warnings.contains { $0.hasPrefix("DG11 could not be parsed") })
        #expect(r.warnings.contains { $0.hasPrefix("DG12 could not be parsed") })
        #expect(r.warnings.contains { $0.hasPrefix("DG16 could not be parsed") })
        #expect(r.warnings.contains("DG5 declares 2 images, holds 1"))
        #expect(d.displayedPortraits?.first?.width == nil && d.displayedPortraits?.first?.format == "jpeg")
        #expect(!r.warnings.joined().contains("ERIKSSON"))
    }

    /// Every truncation of every personal data group of the generated specimen, through the report and the
    /// HTML page: never a trap, the broken group is named in a warning and none of it is shown.
    @Test func everyTruncationGoesThroughReportAndPage() async throws {
        let files = try await Cache.shared.get().result.files
        let dg1 = try #require(files[.dg1])
        var warned = 0
        var total = 0
        for f in [LDSFile.dg5, .dg7, .dg11, .dg12, .dg16] {
            let full = try #require(files[f])
            for n in 0..<full.count {
                var r = ReadReport()
                let cut = Array(full.prefix(n))
                ReportBuilder.fill(
                    &r, files: [.dg1: dg1, f: cut], facts: [:], reference: ASN1Time(year: 2026, month: 1, day: 1),
                    faceImagePath: nil)
                let d = try #require(r.document)
                let html = HTMLReport.render(
                    r, face: nil, images: HTMLReport.documentImages(LDSDocument(files: [f: cut])))
                #expect(!html.contains("<script"))
                // a prefix never holds the length its outer tag declares: always refused, never half shown
                if r.warnings == [
                    "\(f.rawValue) could not be parsed: \(try #require(LDSDocument(files: [f: cut]).errors[f]))"
                ] {
                    warned += 1
                }
                #expect(PersonalDataSection.sections(of: d).isEmpty)
                total += 1
            }
        }
        #expect(warned == total && total > 5000)
    }

    /// The specimen fixtures hold none of these data groups: their report has none of the fields and no warning.
    @Test(.sharedFixtures) func specimenFixtureWithoutPersonalDataGroups() async throws {
        let dir = "specimens/bsi2008/"
        var files: [LDSFile: [UInt8]] = [:]
        for (f, name) in [(LDSFile.com, "EF_COM.bin"), (.dg1, "Datagroup1.bin"), (.sod, "EF_SOD.bin")] {
            files[f] = try SharedFixtures.bytes(dir + name)
        }
        var r = ReadReport()
        ReportBuilder.fill(
            &r, files: files, facts: [:], reference: ASN1Time(year: 2026, month: 1, day: 1), faceImagePath: nil)
        let d = try #require(r.document)
        #expect(d.additionalPersonalDetails == nil && d.additionalDocumentDetails == nil && d.personsToNotify == nil)
        #expect(d.displayedPortraits == nil && d.displayedSignatures == nil && r.warnings.isEmpty)
        #expect(PersonalDataSection.sections(of: d).isEmpty)
    }
}
