import ASN1TLV
import MRTDDocument
import MRTDTestSupport
import Testing

/// Hand-built data groups covering every element (ICAO 9303-10 §4.7), specimen data only.
enum Build {
    static func t(_ tag: UInt32, _ s: String) -> [UInt8] { TLVWriter.encode(tag, Array(s.utf8)) }
    static func t(_ tag: UInt32, _ b: [UInt8]) -> [UInt8] { TLVWriter.encode(tag, b) }

    /// A minimal baseline JPEG header: SOI, APP0 JFIF, SOF0 with the given size, EOI.
    static func jpeg(width: Int, height: Int) -> [UInt8] {
        [
            0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01,
            0x00, 0x00,
            0xFF, 0xC0, 0x00, 0x0B, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8),
            UInt8(width & 0xFF),
            0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9,
        ]
    }

    static let dg11: [UInt8] = t(
        0x6B,
        t(
            0x5C,
            [
                0x5F, 0x0E, 0x5F, 0x10, 0x5F, 0x2B, 0x5F, 0x11, 0x5F, 0x42, 0x5F, 0x12, 0x5F, 0x13,
                0x5F, 0x14, 0x5F, 0x15, 0x5F, 0x16, 0x5F, 0x17, 0x5F, 0x18, 0xA0,
            ])
            + t(0x5F0E, "ERIKSSON<<ANNA<MARIA")
            + t(0xA0, [0x02, 0x01, 0x02] + t(0x5F0F, "SMITH<<ANNA") + t(0x5F0F, "JONES<<ANNA<M"))
            + t(0x5F10, "123456789")
            + t(0x5F2B, "19740812")
            + t(0x5F11, "ZENITH<UTOPIA")
            + t(0x5F42, "123 MAPLE ST<ZENITH<UTOPIA")
            + t(0x5F12, "+0 555 0100")
            + t(0x5F13, "ENGINEER")
            + t(0x5F14, "DR")
            + t(0x5F15, "SPECIMEN SUMMARY")
            + t(0x5F16, jpeg(width: 20, height: 10))
            + t(0x5F17, "L898902C3<D23145890")
            + t(0x5F18, "NONE"))

    static let dg12: [UInt8] = t(
        0x6C,
        t(0x5C, [0x5F, 0x19, 0x5F, 0x26, 0xA0, 0x5F, 0x1B, 0x5F, 0x1C, 0x5F, 0x1D, 0x5F, 0x1E, 0x5F, 0x55, 0x5F, 0x56])
            + t(0x5F19, "UTOPIA PASSPORT OFFICE")
            + t(0x5F26, [0x20, 0x20, 0x04, 0x15])  // BCD 20200415
            + t(0xA0, [0x02, 0x01, 0x01] + t(0x5F1A, "ERIKSSON<<LARS"))
            + t(0x5F1B, "NONE")
            + t(0x5F1C, "EXIT PERMITTED")
            + t(0x5F1D, jpeg(width: 64, height: 40))
            + t(0x5F1E, jpeg(width: 64, height: 41))
            + t(0x5F55, "20200415093000")
            + t(0x5F56, "SN-0001"))

    static let dg16: [UInt8] = t(
        0x70,
        [0x02, 0x01, 0x02]
            + t(
                0xA1,
                t(0x5F50, "20200101") + t(0x5F51, "ERIKSSON<<LARS") + t(0x5F52, "+0 555 0101")
                    + t(0x5F53, "1 MAIN ST<ZENITH"))
            + t(0xA2, t(0x5F50, "20210101") + t(0x5F51, "ERIKSSON<<EVA")))

    /// A 19794-5 record with every field set: two feature points, non-zero information fields, a JPEG image.
    static func iso19794Record(image: [UInt8]) -> [UInt8] {
        let points: [UInt8] = [
            0x01, 0x12, 0x00, 0x64, 0x00, 0xC8, 0x00, 0x00,
            0x01, 0x34, 0x01, 0x2C, 0x00, 0x96, 0x00, 0x00,
        ]
        let info: [UInt8] = [0x01, 0x00, 0x01, 0x40, 0x01, 0xE0, 0x01, 0x02, 0x00, 0x07, 0x00, 0x64]
        let blockLength = 20 + points.count + info.count + image.count
        var facial: [UInt8] = [
            UInt8(blockLength >> 24), UInt8((blockLength >> 16) & 0xFF), UInt8((blockLength >> 8) & 0xFF),
            UInt8(blockLength & 0xFF),
        ]
        facial += [0x00, 0x02, 0x02, 0x03, 0x04, 0x00, 0x00, 0x07, 0x00, 0x02, 0x05, 0x06, 0x07, 0x01, 0x02, 0x03]
        let total = 14 + blockLength
        let header: [UInt8] = [
            0x46, 0x41, 0x43, 0x00, 0x30, 0x31, 0x30, 0x00,
            UInt8(total >> 24), UInt8((total >> 16) & 0xFF), UInt8((total >> 8) & 0xFF), UInt8(total & 0xFF), 0x00,
            0x01,
        ]
        return header + facial + points + info + image
    }

    static func dg2(record: [UInt8]) -> [UInt8] {
        let header = t(
            0xA1,
            [
                0x80, 0x02, 0x01, 0x01, 0x81, 0x01, 0x02, 0x82, 0x01, 0x00, 0x87, 0x02, 0x01, 0x01, 0x88, 0x02, 0x00,
                0x08,
            ])
        return t(0x75, t(0x7F61, [0x02, 0x01, 0x01] + t(0x7F60, header + t(0x5F2E, record))))
    }

    static let dg5: [UInt8] = t(0x65, [0x02, 0x01, 0x01] + t(0x5F40, jpeg(width: 30, height: 40)))
    static let dg7: [UInt8] = t(0x67, [0x02, 0x01, 0x01] + t(0x5F43, jpeg(width: 90, height: 20)))
    static let dg13: [UInt8] = t(0x6D, [0xDE, 0xAD, 0xBE, 0xEF])

    static func dg15EC(named: Bool) -> [UInt8] {
        let point = [UInt8(0x04)] + [UInt8](repeating: 0x11, count: 64)
        let params: [UInt8]
        if named {
            params = DER.objectIdentifier("1.3.36.3.3.2.8.1.1.7")
        } else {
            let p = [UInt8(0x00), 0xA9] + [UInt8](repeating: 0x55, count: 31)
            params = DER.sequence(
                DER.integer(1), DER.sequence(DER.objectIdentifier("1.2.840.10045.1.1"), TLVWriter.encode(0x02, p)),
                DER.sequence(DER.octetString([1]), DER.octetString([2])), DER.octetString(point),
                DER.integer(unsigned: [0xA9, 0x01]), DER.integer(1))
        }
        let spki = DER.sequence(DER.sequence(DER.objectIdentifier("1.2.840.10045.2.1"), params), DER.bitString(point))
        return t(0x6F, spki)
    }
}

struct HandBuiltFileTests {
    @Test func dg11EveryField() throws {
        let dg11 = try DG11File(bytes: Build.dg11)
        #expect(dg11.tagList.count == 13 && dg11.tagList.first == 0x5F0E && dg11.tagList.last == 0xA0)
        #expect(dg11.fullName == "ERIKSSON<<ANNA<MARIA")
        #expect(dg11.nameComponents?.primary == "ERIKSSON" && dg11.nameComponents?.secondary == "ANNA MARIA")
        #expect(dg11.otherNames == ["SMITH<<ANNA", "JONES<<ANNA<M"])
        #expect(dg11.personalNumber == "123456789")
        #expect(dg11.fullDateOfBirth == "19740812")
        #expect(dg11.placeOfBirth.map(LDSFields.split) == ["ZENITH", "UTOPIA"])
        #expect(dg11.address.map(LDSFields.split) == ["123 MAPLE ST", "ZENITH", "UTOPIA"])
        #expect(dg11.telephone == "+0 555 0100")
        #expect(dg11.profession == "ENGINEER")
        #expect(dg11.title == "DR")
        #expect(dg11.personalSummary == "SPECIMEN SUMMARY")
        #expect(dg11.proofOfCitizenship.map { ImageFormat.dimensions($0)?.width } == 20)
        #expect(dg11.otherValidTravelDocumentNumbers.map(LDSFields.split) == ["L898902C3", "D23145890"])
        #expect(dg11.custodyInformation == "NONE")
        #expect(dg11.raw == Build.dg11)
        // Without the optional elements every field is nil.
        let empty = try DG11File(bytes: [0x6B, 0x00])
        #expect(empty.fullName == nil && empty.otherNames.isEmpty && empty.custodyInformation == nil)
        // Wrong outer tag → the error names DG11 and offset 0.
        let e = #expect(throws: LDSParseError.self) { try DG11File(bytes: [0x6C, 0x00]) }
        #expect(e?.file == .dg11 && e?.offset == 0 && e?.code == .unexpectedTag)
    }

    @Test func dg12EveryField() throws {
        let dg12 = try DG12File(bytes: Build.dg12)
        #expect(dg12.tagList.count == 9)
        #expect(dg12.issuingAuthority == "UTOPIA PASSPORT OFFICE")
        #expect(dg12.dateOfIssue == "20200415")
        #expect(dg12.otherPersons == ["ERIKSSON<<LARS"])
        #expect(dg12.endorsementsAndObservations == "NONE")
        #expect(dg12.taxOrExitRequirements == "EXIT PERMITTED")
        #expect(dg12.imageOfFront.flatMap { ImageFormat.dimensions($0)?.height } == 40)
        #expect(dg12.imageOfRear.flatMap { ImageFormat.dimensions($0)?.height } == 41)
        #expect(dg12.personalizationTime == "20200415093000")
        #expect(dg12.personalizationDeviceSerialNumber == "SN-0001")
    }

    @Test func dg16Persons() throws {
        let dg16 = try DG16File(bytes: Build.dg16)
        #expect(dg16.declaredCount == 2 && dg16.persons.count == 2)
        #expect(dg16.persons[0].name == "ERIKSSON<<LARS" && dg16.persons[0].telephone == "+0 555 0101")
        #expect(dg16.persons[0].address == "1 MAIN ST<ZENITH" && dg16.persons[0].dateRecorded == "20200101")
        #expect(dg16.persons[1].name == "ERIKSSON<<EVA" && dg16.persons[1].telephone == nil)
    }

    @Test func displayedImagesAndDG13() throws {
        let dg5 = try DisplayedImageFile(file: .dg5, bytes: Build.dg5)
        #expect(dg5.images.map(\.tag) == [0x5F40] && dg5.images[0].format == .jpeg)
        #expect(dg5.images[0].dimensions?.width == 30 && dg5.images[0].dimensions?.height == 40)
        let dg7 = try DisplayedImageFile(file: .dg7, bytes: Build.dg7)
        #expect(dg7.images.map(\.tag) == [0x5F43] && dg7.images[0].dimensions?.width == 90)
        #expect(throws: LDSParseError.self) { try DisplayedImageFile(file: .dg6, bytes: Build.dg5) }  // '65' in DG6
        let dg13 = try DG13File(bytes: Build.dg13)
        #expect(dg13.content == [0xDE, 0xAD, 0xBE, 0xEF])
        let e = #expect(throws: LDSParseError.self) { try DG13File(bytes: [0x6D, 0x05, 0x00]) }
        #expect(e?.file == .dg13 && e?.code == .malformedTLV)
    }

    @Test(arguments: [true, false])
    func dg15EC(_ named: Bool) throws {
        let dg15 = try DG15File(bytes: Build.dg15EC(named: named))
        #expect(dg15.algorithm == DG15File.ecPublicKey)
        #expect(dg15.keySizeBits == 256)
        guard case .ec(let point, let curve, let explicit, _) = dg15.publicKey else {
            Issue.record("not EC")
            return
        }
        #expect(point.count == 65 && point[0] == 0x04)
        #expect((curve?.dotted == "1.3.36.3.3.2.8.1.1.7") == named)
        #expect((explicit != nil) == !named)
    }

    @Test func iso19794EveryField() throws {
        let image = Build.jpeg(width: 320, height: 480)
        let dg2 = try DG2File(bytes: Build.dg2(record: Build.iso19794Record(image: image)))
        let face = try #require(dg2.faceImage)
        let r = try #require(face.iso19794)
        #expect(r.gender == 2 && r.eyeColour == 3 && r.hairColour == 4)
        #expect(r.propertyMask == 0x000007 && r.expression == 2)
        #expect(
            [r.poseYaw, r.posePitch, r.poseRoll, r.poseUncertaintyYaw, r.poseUncertaintyPitch, r.poseUncertaintyRoll]
                == [5, 6, 7, 1, 2, 3])
        #expect(r.featurePoints.count == 2)
        #expect(r.featurePoints[0].type == 1 && r.featurePoints[0].majorCode == 1 && r.featurePoints[0].minorCode == 2)
        #expect(r.featurePoints[0].x == 100 && r.featurePoints[0].y == 200)
        #expect(r.featurePoints[1].majorCode == 3 && r.featurePoints[1].minorCode == 4 && r.featurePoints[1].x == 300)
        #expect(r.faceImageType == 1 && r.imageDataType == 0)
        #expect(r.width == 320 && r.height == 480)
        #expect(r.colourSpace == 1 && r.sourceType == 2 && r.deviceType == 7 && r.quality == 100)
        #expect(r.imageData == image)
        #expect(face.format == .jpeg && face.width == 320 && face.height == 480)
        #expect(face.header.formatType == 8)
    }

    /// Declared lengths larger than the input are errors naming the file and the offset of the length.
    @Test func inflatedLengths() throws {
        var record = Build.iso19794Record(image: Build.jpeg(width: 1, height: 1))
        record[11] &+= 1  // record length one beyond the data
        let e = #expect(throws: LDSParseError.self) { try DG2File(bytes: Build.dg2(record: record)) }
        #expect(e?.file == .dg2 && e?.code == .invalidValue)
        // The record starts after 75 L 7F61 L 02 01 01 7F60 L A1 .. 5F2E L; the length field is at +8.
        let dg2 = Build.dg2(record: record)
        let recordStart = try #require(
            (0..<dg2.count).first { Array(dg2[$0..<min(dg2.count, $0 + 4)]) == [0x46, 0x41, 0x43, 0x00] })
        #expect(e?.offset == recordStart + 8)

        var dg1 = hex(
            "615B5F1F58503C55544F4552494B53534F4E3C3C414E4E413C4D415249413C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C4C38393839303243333655544F3734303831323246313230343135395A45313834323236423C3C3C3C3C3130"
        )
        dg1[4] = 0x59  // 5F1F declares 89 of 88 bytes
        let e1 = #expect(throws: LDSParseError.self) { try DG1File(bytes: dg1) }
        #expect(e1?.file == .dg1 && e1?.code == .malformedTLV)
        let e2 = #expect(throws: LDSParseError.self) { try COMFile(bytes: [0x60, 0x84, 0x7F, 0xFF, 0xFF, 0xFF]) }
        #expect(e2?.file == .com && e2?.offset == 1)
    }

    /// A character outside the MRZ set inside DG1 is reported at its offset in the file.
    @Test func dg1BadCharacterOffset() throws {
        var dg1 = hex(
            "615B5F1F58503C55544F4552494B53534F4E3C3C414E4E413C4D415249413C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C4C38393839303243333655544F3734303831323246313230343135395A45313834323236423C3C3C3C3C3130"
        )
        dg1[5 + 10] = UInt8(ascii: "a")
        let e = #expect(throws: LDSParseError.self) { try DG1File(bytes: dg1) }
        #expect(e?.file == .dg1 && e?.code == .invalidMRZ && e?.offset == 15)
        let mrz = try DG1File(
            bytes: hex(
                "615B5F1F58503C55544F4552494B53534F4E3C3C414E4E413C4D415249413C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C4C38393839303243333655544F3734303831323246313230343135395A45313834323236423C3C3C3C3C3130"
            )
        ).mrz
        #expect(mrz.personalNumber == "ZE184226B" && mrz.surname == "ERIKSSON" && mrz.givenNames == "ANNA MARIA")
    }
}
