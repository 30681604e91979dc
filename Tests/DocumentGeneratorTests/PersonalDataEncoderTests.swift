import ASN1TLV
import MRTDDocument
import Testing

@testable import DocumentGenerator

/// The generator's DG5, DG7 and DG16 (ICAO 9303-10 §4.7.5, §4.7.7, §4.7.16), and that every generated
/// profile carries every DG11, DG12 and DG16 field.
@Suite("Generator: personal data groups DG5/DG7/DG16")
struct PersonalDataEncoderTests {
    @Test func dg16HasOneTemplatePerPersonInOrder() throws {
        let s = Specimen.utopiaPassport
        let node = try TLVParser.parse(LDSEncoders.dg16(s), rules: .der)
        #expect(node.tag == 0x70)
        #expect(try node.requireChild(0x02).integerValue() == s.personsToNotify.count)
        let templates = node.children.filter { $0.tag != 0x02 }
        #expect(templates.map(\.tag) == [0xA1, 0xA2])
        for (t, p) in zip(templates, s.personsToNotify) {
            #expect(t.children.map(\.tag) == [0x5F50, 0x5F51, 0x5F52, 0x5F53])
            #expect(try t.requireChild(0x5F51).valueBytes == Array(p.name.utf8))
            #expect(try t.requireChild(0x5F53).valueBytes == Array(p.address.utf8))
        }
        let parsed = try DG16File(bytes: LDSEncoders.dg16(s))
        #expect(parsed.persons.map(\.name) == s.personsToNotify.map(\.name))
        #expect(parsed.persons.map(\.dateRecorded) == s.personsToNotify.map(\.dateRecorded))
    }

    @Test func displayedImagesAreJPEGUnderTheirTags() throws {
        let dg5 = LDSEncoders.displayedImages(.dg5, images: [LDSEncoders.displayedPortrait()])
        let dg7 = LDSEncoders.displayedImages(.dg7, images: [LDSEncoders.displayedSignature()])
        let p = try DisplayedImageFile(file: .dg5, bytes: dg5)
        let g = try DisplayedImageFile(file: .dg7, bytes: dg7)
        #expect(p.declaredCount == 1 && p.images.map(\.tag) == [0x5F40])
        #expect(g.declaredCount == 1 && g.images.map(\.tag) == [0x5F43])
        #expect(
            p.images[0].format == .jpeg && p.images[0].dimensions?.width == 60 && p.images[0].dimensions?.height == 80)
        #expect(
            g.images[0].format == .jpeg && g.images[0].dimensions?.width == 120 && g.images[0].dimensions?.height == 40)
    }

    /// The signature is drawn: dark strokes on a light ground, not a blank image.
    @Test func signatureHasInk() {
        let w = 120
        let h = 40
        let a = LDSEncoders.displayedSignature(width: w, height: h)
        let blank = LDSEncoders.jpeg(width: w, height: h, pixels: [UInt8](repeating: 250, count: w * h), quality: 70)
        #expect(a != blank && a.count > blank.count + 200)
    }

    @Test(arguments: SpecimenGenerator.profileNames)
    func everyProfileCarriesEveryPersonalField(profile: String) throws {
        let g = try SpecimenGenerator.generate(named: profile)
        let files = g.profile.files
        let dg11 = try DG11File(bytes: try #require(files[.dg11]))
        #expect(
            dg11.fullName != nil && !dg11.otherNames.isEmpty && dg11.personalNumber != nil
                && dg11.fullDateOfBirth != nil)
        #expect(dg11.placeOfBirth != nil && dg11.address != nil && dg11.telephone != nil && dg11.profession != nil)
        #expect(dg11.title != nil && dg11.personalSummary != nil && dg11.proofOfCitizenship != nil)
        #expect(dg11.otherValidTravelDocumentNumbers != nil && dg11.custodyInformation != nil)
        let dg12 = try DG12File(bytes: try #require(files[.dg12]))
        #expect(dg12.issuingAuthority != nil && dg12.dateOfIssue != nil && !dg12.otherPersons.isEmpty)
        #expect(dg12.endorsementsAndObservations != nil && dg12.taxOrExitRequirements != nil)
        #expect(dg12.imageOfFront != nil && dg12.imageOfRear != nil && dg12.personalizationTime != nil)
        #expect(dg12.personalizationDeviceSerialNumber != nil)
        let dg16 = try DG16File(bytes: try #require(files[.dg16]))
        #expect(
            dg16.persons.count == 2
                && dg16.persons.allSatisfy {
                    $0.name != nil && $0.telephone != nil && $0.address != nil && $0.dateRecorded != nil
                })
        #expect(files[.dg5] != nil && files[.dg7] != nil)
        // listed in EF.COM
        let com = try COMFile(bytes: try #require(files[.com]))
        for f in [LDSFile.dg5, .dg7, .dg11, .dg12, .dg16] {
            #expect(com.dataGroups.contains(f), "\(f.rawValue) not in EF.COM")
        }
    }
}
