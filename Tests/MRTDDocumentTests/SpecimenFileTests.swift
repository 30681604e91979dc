import ASN1TLV
import MRTDDocument
import MRTDTestSupport
import Testing

/// The public specimen files (public fixture files kept beside the repository, not redistributed); expected values were read independently
/// with `openssl asn1parse`, `openssl pkey` and a hex dump.
struct SpecimenFileTests {
    @Test(
        .sharedFixtures,
        arguments: [
            ("specimens/bsi2008/EF_COM.bin", [LDSFile.dg1, .dg2, .dg3, .dg14]),
            ("specimens/nl-2006/ef011E.bin", [.dg1, .dg2, .dg15]),
            ("specimens/bsi-tr03105-5/EF_COM.bin", [.dg1, .dg2, .dg3, .dg4, .dg14]),
        ])
    func efCOM(_ path: String, _ groups: [LDSFile]) throws {
        let com = try COMFile(bytes: try Fixtures.bytes(path))
        #expect(com.ldsVersion == "0107" && com.ldsVersionDotted == "1.7")
        #expect(com.unicodeVersion == "040000" && com.unicodeVersionDotted == "4.0.0")
        #expect(com.dataGroups == groups)
        #expect(com.unknownTags.isEmpty)
    }

    @Test(
        .sharedFixtures,
        arguments: [
            ("specimens/bsi2008/Datagroup1.bin", "MUSTERMANN", "ERIKA", "C11T002JM", "131031"),
            ("specimens/nl-2006/ef0101.bin", "MEULENDIJK", "LOES ALBERTINE", "XX0001328", "111001"),
            ("specimens/bsi-tr03105-5/Datagroup1.bin", "MUSTERMANN", "ERIKA", "C11T002JM", "231031"),
        ])
    func dg1(_ path: String, _ surname: String, _ given: String, _ number: String, _ expiry: String) throws {
        let dg1 = try DG1File(bytes: try Fixtures.bytes(path))
        #expect(dg1.mrz.format == .td3)
        #expect(dg1.mrz.primaryIdentifier == surname)
        #expect(dg1.mrz.secondaryIdentifier == given)
        #expect(dg1.mrz.documentNumber == number)
        #expect(dg1.mrz.dateOfExpiry.raw == expiry)
        #expect(dg1.mrz.isValid)
        #expect(!dg1.description.contains(surname))
    }

    /// DG1 encodings as published (ICAO Doc 9303-10 Appendix A and the specimens of parts 4–5).
    @Test(arguments: [
        (
            "615B5F1F58503C55544F4552494B53534F4E3C3C414E4E413C4D415249413C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C4C38393839303243333655544F3734303831323246313230343135395A45313834323236423C3C3C3C3C3130",
            MRZFormat.td3, "L898902C3674081221204159", true
        ),
        (
            "615D5F1F5A493C55544F443233313435383930373C3C3C3C3C3C3C3C3C3C3C3C3C3C3C37343038313232463132303431353955544F3C3C3C3C3C3C3C3C3C3C3C364552494B53534F4E3C3C414E4E413C4D415249413C3C3C3C3C3C3C3C3C3C",
            .td1, "D23145890774081221204159", true
        ),
        (
            "614B5F1F48493C55544F4552494B53534F4E3C3C414E4E413C4D415249413C3C3C3C3C3C3C3C3C3C3C4432333134353839303755544F3734303831323246313230343135393C3C3C3C3C3C3C36",
            .td2, "D23145890774081221204159", true
        ),
        (
            "615D5F1F5A493C4E4C44584938353933354638363939393939393939303C3C3C3C3C3C3732303831343846313130383236384E4C443C3C3C3C3C3C3C3C3C3C3C3456414E3C4445523C535445454E3C3C4D415249414E4E453C4C4F55495345",
            .td1, "XI85935F8672081481108268", false
        ),
        (
            "615B5F1F58503C443C3C4D55535445524D414E4E3C3C4552494B413C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C3C433131543030324A4D34443C3C3936303831323246323331303331343C3C3C3C3C3C3C3C3C3C3C3C3C3C3C34",
            .td3, "C11T002JM496081222310314", true
        ),
    ])
    func publishedDG1(_ dg1Hex: String, _ format: MRZFormat, _ info: String, _ valid: Bool) throws {
        let bytes = hex(dg1Hex)
        let dg1 = try DG1File(bytes: bytes)
        #expect(dg1.mrz.format == format)
        #expect(dg1.mrz.keyInfo.mrzInformation == info)
        #expect(dg1.mrz.isValid == valid)
        // Twin: one bit flipped in the date of birth's check digit character → that check fails.
        let dobCD = format == .td1 ? 5 + 30 + 6 : 5 + format.lineLength + 19
        let twin = try DG1File(bytes: flipBit(bytes, at: dobCD, bit: 0))
        #expect(twin.mrz.check(.dateOfBirth)?.isValid == false)
    }

    @Test(
        .sharedFixtures,
        arguments: [
            // The BSI 2008 record declares 337×449 but its JPEG 2000 image is 413×531 (ihdr box, checked with a hex dump).
            ("specimens/bsi2008/Datagroup2.bin", 337, 449, 413, 531, 14999),
            ("specimens/nl-2006/ef0102.bin", 449, 598, 449, 598, 13701),
        ])
    func dg2ISO19794(
        _ path: String, _ width: Int, _ height: Int, _ actualWidth: Int, _ actualHeight: Int,
        _ imageLength: Int
    ) throws {
        let dg2 = try DG2File(bytes: try Fixtures.bytes(path))
        #expect(dg2.group.declaredCount == 1 && dg2.group.templates.count == 1)
        let header = dg2.group.templates[0].header
        #expect(header.biometricType == 2 && header.biometricSubtype == 0)
        #expect(header.formatOwner == 0x0101 && header.formatType == 0x0008)
        let face = try #require(dg2.faceImage)
        #expect(face.encoding == .iso19794_5)
        #expect(face.format == .jpeg2000)
        #expect(face.declaredWidth == width && face.declaredHeight == height)
        #expect(face.width == actualWidth && face.height == actualHeight)
        #expect(face.imageData.count == imageLength)
        let record = try #require(face.iso19794)
        #expect(record.imageDataType == 1 && record.faceImageType == 1 && record.featurePoints.isEmpty)
        #expect(dg2.iso19794Records.first?.version == "010")
    }

    /// JMRTD's "all fields" DG2 sample: despite its file name it is the ISO/IEC 39794-5 DG2 of 9303-10 (8th ed.):
    /// the data block is a constructed '7F2E' holding the [APPLICATION 5] block.
    @Test(.sharedFixtures) func dg2ISO39794AllFields() throws {
        let dg2 = try DG2File(bytes: try Fixtures.bytes("lds-samples/DG2-iso19794-5-all-fields.bin"))
        let t = dg2.group.templates[0]
        #expect(t.dataBlockTag == 0x7F2E)
        #expect(t.header.icaoHeaderVersion == [0x01, 0x01])
        #expect(t.header.formatOwner == 0x0101 && t.header.formatType == 0x002A)
        #expect(t.header.creationDateTime?.count == 7 && t.header.validityPeriod?.count == 8)
        #expect(t.header.creator == [0x01, 0x03, 0x00, 0x01])
        let face = try #require(dg2.faceImage)
        #expect(face.encoding == .iso39794_5)
        #expect(face.format == .jpeg2000)
        #expect(face.iso39794?.imageDataFormatCode == 3)
        #expect(face.declaredWidth == 572 && face.declaredHeight == 731)
        #expect(face.width == 413 && face.height == 531)  // from the JP2 ihdr box
        #expect(face.imageData.count == 15000)
        #expect(dg2.iso39794Blocks.first?.generation == 3 && dg2.iso39794Blocks.first?.year == 2019)
    }

    @Test(.sharedFixtures) func iso39794StandaloneSampleAndWrapped() throws {
        let sample = try Fixtures.bytes("lds-samples/DG2-iso39794-5-sample.der")
        let block = try ISO39794FaceImageDataBlock(bytes: sample)
        #expect(block.generation == 3 && block.year == 2019)
        let rep = try #require(block.representations.first)
        #expect(rep.imageFormat == .jpeg && rep.imageDataFormatCode == 2)
        #expect(rep.width == 1024 && rep.height == 1024)  // from the JPEG SOF2 segment
        #expect(rep.imageData.count == 893_557)
        #expect(Array(rep.imageData.prefix(3)) == [0xFF, 0xD8, 0xFF])

        // The same block inside a DG2 container with a plain '5F2E' data block.
        let header = TLVWriter.encode(
            0xA1, [0x80, 0x02, 0x01, 0x01, 0x81, 0x01, 0x02, 0x87, 0x02, 0x01, 0x01, 0x88, 0x02, 0x00, 0x2A])
        let bit = TLVWriter.encode(0x7F60, header + TLVWriter.encode(0x5F2E, sample))
        let dg2Bytes = TLVWriter.encode(0x75, TLVWriter.encode(0x7F61, [0x02, 0x01, 0x01] + bit))
        let dg2 = try DG2File(bytes: dg2Bytes)
        #expect(dg2.faceImage?.format == .jpeg && dg2.faceImage?.width == 1024)
        #expect(dg2.faceImage?.imageData == rep.imageData)
    }

    @Test(
        .sharedFixtures,
        arguments: [
            ("specimens/bsi2008/Datagroup3.bin", LDSFile.dg3, 0x08, "FIR"),
            ("specimens/bsi2008/Datagroup4.bin", LDSFile.dg4, 0x10, "IIR"),
        ])
    func dg3dg4Containers(_ path: String, _ file: LDSFile, _ type: Int, _ magic: String) throws {
        let bytes = try Fixtures.bytes(path)
        let c = try BiometricContainerFile(file: file, bytes: bytes)
        #expect(c.group.declaredCount == 2 && c.group.templates.count == 2)
        for t in c.group.templates {
            #expect(t.header.biometricType == type)
            #expect(t.dataBlockTag == 0x5F2E)
            #expect(String(decoding: t.dataBlock.prefix(3), as: UTF8.self) == magic)
            #expect(Array(bytes[t.dataBlockOffset..<(t.dataBlockOffset + t.dataBlock.count)]) == t.dataBlock)
        }
    }

    @Test(
        .sharedFixtures,
        arguments: [
            "specimens/bsi2008/Datagroup15.bin", "specimens/nl-2006/ef010F.bin",
            "specimens/bsi-tr03105-5/Datagroup15.bin",
        ])
    func dg15RSA(_ path: String) throws {
        let bytes = try Fixtures.bytes(path)
        let dg15 = try DG15File(bytes: bytes)
        #expect(dg15.algorithm == DG15File.rsaEncryption)
        #expect(dg15.keySizeBits == 1024)
        guard case .rsa(let modulus, let exponent) = dg15.publicKey else {
            Issue.record("not RSA")
            return
        }
        #expect(modulus.count == 128 && !exponent.isEmpty)
        // The SPKI is the file minus the '6F' header, byte for byte.
        #expect(Array(bytes.suffix(dg15.subjectPublicKeyInfo.count)) == dg15.subjectPublicKeyInfo)
    }

    @Test(.sharedFixtures) func ldsDocumentFromSpecimen() throws {
        var files: [LDSFile: [UInt8]] = [:]
        for (f, p) in [
            (LDSFile.com, "EF_COM.bin"), (.sod, "EF_SOD.bin"), (.dg1, "Datagroup1.bin"), (.dg2, "Datagroup2.bin"),
            (.dg3, "Datagroup3.bin"), (.dg4, "Datagroup4.bin"), (.dg14, "Datagroup14.bin"), (.dg15, "Datagroup15.bin"),
        ] {
            files[f] = try Fixtures.bytes("specimens/bsi2008/" + p)
        }
        files[.dg11] = [0x6B, 0x05, 0x5F, 0x0E, 0x05, 0x41]  // declared length beyond the value: an error
        let doc = LDSDocument(files: files)
        #expect(doc.errors.keys.sorted() == [.dg11])
        #expect(doc.errors[.dg11]?.file == .dg11)
        #expect(doc.mrz?.documentNumber == "C11T002JM")
        #expect(doc.faceImage?.format == .jpeg2000)
        #expect(doc.com?.dataGroups.contains(.dg14) == true)
        #expect(doc.sod?.ldsSecurityObject.dataGroupNumbers == [1, 2, 3, 14])
        if case .raw(let b)? = doc.contents[.dg14] { #expect(b == files[.dg14]) } else { Issue.record("DG14 not raw") }
        if case .biometric(let c)? = doc.contents[.dg4] { #expect(c.file == .dg4) } else { Issue.record("DG4") }
    }
}
