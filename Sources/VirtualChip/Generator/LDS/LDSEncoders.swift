public import MRTDDocument
import ASN1TLV

/// Encoders of the LDS1 elementary files (ICAO 9303-10 §4.6 and §4.7). Each returns the complete file
/// content, outer tag included, byte for byte as the chip serves it.
public enum LDSEncoders {
    /// ICAO 9303-10 §4.6.1 EF.COM: `60 { 5F01 LDS version "0107", 5F36 Unicode version "040000", 5C tag list }`.
    /// The tag list holds the one-byte outer tags of the data groups present (§4.6.1, Table 36).
    public static func com(dataGroups: [LDSFile], ldsVersion: String = "0107", unicodeVersion: String = "040000") -> [UInt8] {
        let tags = dataGroups.sorted().compactMap(\.tag).map { UInt8($0) }
        return TLVWriter.encode(0x60, children: [
            TLVWriter.encode(0x5F01, Array(ldsVersion.utf8)),
            TLVWriter.encode(0x5F36, Array(unicodeVersion.utf8)),
            TLVWriter.encode(0x5C, tags),
        ])
    }

    /// ICAO 9303-10 §4.7.1 DG1: `61 { 5F1F MRZ data elements }` (88 characters for TD3, 90 for TD1).
    public static func dg1(mrz: String) -> [UInt8] {
        TLVWriter.encode(0x61, TLVWriter.encode(0x5F1F, Array(mrz.utf8)))
    }

    /// ICAO 9303-10 §4.7.2 DG2 with one facial biometric:
    /// ```
    /// 75 { 7F61 { 02 count=1, 7F60 { A1 Biometric Header Template { 80 ICAO header version 0101, 81 biometric
    ///      type 02 (facial features), 87 format owner 0101 (ISO/IEC JTC 1/SC 37), 88 format type 0008 (face image) },
    ///      5F2E biometric data block (ISO/IEC 19794-5) } } }
    /// ```
    public static func dg2(faceRecord: [UInt8]) -> [UInt8] {
        let bht = TLVWriter.encode(0xA1, children: [
            TLVWriter.encode(0x80, [0x01, 0x01]),
            TLVWriter.encode(0x81, [0x02]),
            TLVWriter.encode(0x87, [0x01, 0x01]),
            TLVWriter.encode(0x88, [0x00, 0x08]),
        ])
        let bit = TLVWriter.encode(0x7F60, children: [bht, TLVWriter.encode(0x5F2E, faceRecord)])
        let group = TLVWriter.encode(0x7F61, children: [TLVWriter.encode(0x02, [0x01]), bit])
        return TLVWriter.encode(0x75, group)
    }

    /// ISO/IEC 19794-5:2005 facial record with one JPEG image (§5.4–§5.8):
    /// - Facial Record Header (14 bytes): format identifier "FAC\0", version "010\0", record length (4),
    ///   number of facial images (2).
    /// - Facial Information (20 bytes): facial record data length (4), number of feature points (2) = 0, gender (1),
    ///   eye colour (1), hair colour (1), property mask (3), expression (2), pose angles (3), pose uncertainty (3).
    /// - Image Information (12 bytes): face image type (1) = 1 full frontal, image data type (1) = 0 JPEG,
    ///   width (2), height (2), colour space (1) = 3 grayscale, source type (1) = 2 digital camera,
    ///   device type (2), quality (2).
    /// - Image data.
    public static func faceRecord(jpeg: [UInt8], width: Int, height: Int, gender: UInt8 = 2) -> [UInt8] {
        let facialDataLength = 20 + 12 + jpeg.count
        let total = 14 + facialDataLength
        var out: [UInt8] = Array("FAC".utf8) + [0] + Array("010".utf8) + [0]
        out += be(total, 4) + be(1, 2)
        out += be(facialDataLength, 4) + be(0, 2) + [gender, 0x00, 0x00] + [0, 0, 0] + be(0, 2) + [0, 0, 0] + [0, 0, 0]
        out += [0x01, 0x00] + be(width, 2) + be(height, 2) + [0x03, 0x02] + be(0, 2) + be(0, 2)
        out += jpeg
        return out
    }

    static func be(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * (n - 1 - $0))) } }

    /// The specimen's DG2 with a synthetic face. When `targetSize` is given, the JPEG is padded with COM
    /// segments so that the whole DG2 file has (as nearly as TLV length octets allow, never less than) that size.
    public static func dg2(face width: Int = 240, height: Int = 320, quality: Int = 75, targetSize: Int? = nil) -> [UInt8] {
        // Deterministic: computed once per parameter set and process.
        let key = "\(width)x\(height)q\(quality)t\(targetSize ?? 0)"
        if let cached = dg2Cache.value(key) { return cached }
        return dg2Cache.insert(key, makeDG2(width: width, height: height, quality: quality, targetSize: targetSize))
    }

    private static let dg2Cache = LockedCache<[UInt8]>()

    static func makeDG2(width: Int, height: Int, quality: Int, targetSize: Int?) -> [UInt8] {
        let pixels = SyntheticFace.pixels(width: width, height: height)
        func build(padding: Int) -> [UInt8] {
            var comments: [[UInt8]] = [Array("EMRTDKit synthetic specimen face - not a real person".utf8)]
            var remaining = padding
            let filler = Array("SPECIMEN PADDING ".utf8)
            while remaining > 0 {
                // Each COM segment costs 4 bytes of marker and length plus its payload (≤ 65533).
                let payload = min(65533, max(1, remaining - 4))
                comments.append((0..<payload).map { filler[$0 % filler.count] })
                remaining -= payload + 4
            }
            let jpeg = BaselineJPEGEncoder.encode(width: width, height: height, pixels: pixels, quality: quality, comments: comments)
            return dg2(faceRecord: faceRecord(jpeg: jpeg, width: width, height: height))
        }
        var file = build(padding: 0)
        guard let target = targetSize, target > file.count else { return file }
        var padding = target - file.count
        for _ in 0..<8 {
            file = build(padding: padding)
            if file.count == target { break }
            padding += target - file.count
            if padding < 5 { padding = 5 }
        }
        if file.count < target { file = build(padding: padding + 8) }
        return file
    }

    /// ICAO 9303-10 §4.7.11 DG11 additional personal details. Every field of the specimen is present:
    /// `6B { 5C tag list, 5F0E full name, A0 { 02 count, 5F0F other name… }, 5F10 personal number,
    /// 5F2B full date of birth (yyyymmdd), 5F11 place of birth, 5F42 address, 5F12 telephone, 5F13 profession,
    /// 5F14 title, 5F15 personal summary, 5F16 proof of citizenship (image), 5F17 other valid TD numbers,
    /// 5F18 custody information }`. The tag list names 5F0F for the other names (as the LDS table lists it).
    public static func dg11(_ s: Specimen, proofOfCitizenship: [UInt8]) -> [UInt8] {
        var body: [[UInt8]] = [TLVWriter.encode(0x5F0E, Array(s.fullName.utf8))]
        var tags: [UInt32] = [0x5F0E]
        if !s.otherNames.isEmpty {
            tags.append(0x5F0F)
            body.append(TLVWriter.encode(0xA0, children: [DER.integer(s.otherNames.count)]
                                         + s.otherNames.map { TLVWriter.encode(0x5F0F, Array($0.utf8)) }))
        }
        let elements: [(UInt32, [UInt8])] = [
            (0x5F10, Array(s.personalNumber.utf8)), (0x5F2B, Array(s.fullDateOfBirth.utf8)),
            (0x5F11, Array(s.placeOfBirth.utf8)), (0x5F42, Array(s.address.utf8)), (0x5F12, Array(s.telephone.utf8)),
            (0x5F13, Array(s.profession.utf8)), (0x5F14, Array(s.title.utf8)), (0x5F15, Array(s.personalSummary.utf8)),
            (0x5F16, proofOfCitizenship), (0x5F17, Array(s.otherTravelDocuments.joined(separator: "<").utf8)),
            (0x5F18, Array(s.custodyInformation.utf8)),
        ]
        for (tag, value) in elements {
            tags.append(tag)
            body.append(TLVWriter.encode(tag, value))
        }
        return TLVWriter.encode(0x6B, children: [tagList(tags)] + body)
    }

    /// ICAO 9303-10 §4.7.12 DG12 additional document details:
    /// `6C { 5C tag list, 5F19 issuing authority, 5F26 date of issue (yyyymmdd), A0 { 02 count, 5F1A name of
    /// other person… }, 5F1B endorsements/observations, 5F1C tax/exit requirements, 5F1D image of front,
    /// 5F1E image of rear, 5F55 personalization time (yyyymmddhhmmss), 5F56 personalization system serial }`.
    public static func dg12(_ s: Specimen, frontImage: [UInt8], rearImage: [UInt8]) -> [UInt8] {
        var tags: [UInt32] = [0x5F19, 0x5F26]
        var body: [[UInt8]] = [TLVWriter.encode(0x5F19, Array(s.issuingAuthority.utf8)),
                               TLVWriter.encode(0x5F26, Array(s.dateOfIssue.utf8))]
        if !s.otherPersons.isEmpty {
            tags.append(0x5F1A)
            body.append(TLVWriter.encode(0xA0, children: [DER.integer(s.otherPersons.count)]
                                         + s.otherPersons.map { TLVWriter.encode(0x5F1A, Array($0.utf8)) }))
        }
        let rest: [(UInt32, [UInt8])] = [
            (0x5F1B, Array(s.endorsements.utf8)), (0x5F1C, Array(s.taxOrExitRequirements.utf8)),
            (0x5F1D, frontImage), (0x5F1E, rearImage), (0x5F55, Array(s.personalizationTime.utf8)),
            (0x5F56, Array(s.personalizationDeviceSerial.utf8)),
        ]
        for (tag, value) in rest {
            tags.append(tag)
            body.append(TLVWriter.encode(tag, value))
        }
        return TLVWriter.encode(0x6C, children: [tagList(tags)] + body)
    }

    static func tagList(_ tags: [UInt32]) -> [UInt8] {
        TLVWriter.encode(0x5C, tags.flatMap { TLVTag.bytes($0) })
    }

    /// ICAO 9303-10 §4.7.14 DG14: `6E { SecurityInfos }` (a DER SET OF SecurityInfo).
    public static func dg14(securityInfos: [[UInt8]]) -> [UInt8] {
        TLVWriter.encode(0x6E, DER.setOf(securityInfos))
    }

    /// ICAO 9303-10 §4.7.15 DG15: `6F { SubjectPublicKeyInfo }` of the Active Authentication key.
    public static func dg15(subjectPublicKeyInfo: [UInt8]) -> [UInt8] {
        TLVWriter.encode(0x6F, subjectPublicKeyInfo)
    }

    /// A small grayscale JPEG "document scan" (for DG11 proof of citizenship and DG12 front/rear images).
    public static func documentImage(width: Int = 64, height: Int = 40, seed: Int = 0) -> [UInt8] {
        var px = [UInt8](repeating: 230, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                if y < 6 { px[y * width + x] = 90 }                                     // header band
                if (y - 12) % 6 == 0 && y > 10 && x > 4 && x < width - 4 - (y * 7 + seed * 13) % 17 {
                    px[y * width + x] = 60                                              // text lines
                }
                if x >= width - 18 && x < width - 4 && y >= 10 && y < 30 { px[y * width + x] = 140 } // photo box
            }
        }
        return BaselineJPEGEncoder.encode(width: width, height: height, pixels: px, quality: 60)
    }
}
