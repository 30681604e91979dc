import ASN1TLV
import FaceImaging
public import MRTDDocument

/// Encoders of the LDS1 elementary files (ICAO 9303-10 §4.6 and §4.7). Each returns the complete file
/// content, outer tag included, byte for byte as the chip serves it.
public enum LDSEncoders {
    /// ICAO 9303-10 §4.6.1 EF.COM: `60 { 5F01 LDS version "0107", 5F36 Unicode version "040000", 5C tag list }`.
    /// The tag list holds the one-byte outer tags of the data groups present (§4.6.1, Table 36).
    public static func com(dataGroups: [LDSFile], ldsVersion: String = "0107", unicodeVersion: String = "040000")
        -> [UInt8]
    {
        let tags = dataGroups.sorted().compactMap(\.tag).map { UInt8($0) }
        return TLVWriter.encode(
            0x60,
            children: [
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
        let bht = TLVWriter.encode(
            0xA1,
            children: [
                TLVWriter.encode(0x80, [0x01, 0x01]),
                TLVWriter.encode(0x81, [0x02]),
                TLVWriter.encode(0x87, [0x01, 0x01]),
                TLVWriter.encode(0x88, [0x00, 0x08]),
            ])
        let bit = TLVWriter.encode(0x7F60, children: [bht, TLVWriter.encode(0x5F2E, faceRecord)])
        let group = TLVWriter.encode(0x7F61, children: [TLVWriter.encode(0x02, [0x01]), bit])
        return TLVWriter.encode(0x75, group)
    }

    /// ISO/IEC 19794-5:2005 facial record with one JPEG or JPEG 2000 image (§5.4–§5.8):
    /// - Facial Record Header (14 bytes): format identifier "FAC\0", version "010\0", record length (4),
    ///   number of facial images (2).
    /// - Facial Information (20 bytes): facial record data length (4), number of feature points (2) = 0, gender (1),
    ///   eye colour (1), hair colour (1), property mask (3), expression (2), pose angles (3), pose uncertainty (3).
    /// - Image Information (12 bytes): face image type (1) = 1 full frontal, image data type (1) = 0 JPEG or
    ///   1 JPEG 2000 (§5.7.2), width (2), height (2), colour space (1) = 1 24-bit RGB or 3 grayscale (§5.7.4),
    ///   source type (1) = 2 digital camera, device type (2), quality (2).
    /// - Image data.
    public static func faceRecord(
        image: [UInt8], format: ImageFormat = .jpeg, width: Int, height: Int,
        colour: Bool = false, gender: UInt8 = 2
    ) -> [UInt8] {
        let facialDataLength = 20 + 12 + image.count
        let total = 14 + facialDataLength
        var out: [UInt8] = Array("FAC".utf8) + [0] + Array("010".utf8) + [0]
        out += be(total, 4) + be(1, 2)
        out +=
            be(facialDataLength, 4) + be(0, 2) + [gender, 0x00, 0x00] + [0, 0, 0] + be(0, 2) + [0, 0, 0] + [0, 0, 0]
        out += [0x01, format == .jpeg2000 ? 0x01 : 0x00] + be(width, 2) + be(height, 2) + [colour ? 0x01 : 0x03, 0x02]
        out += be(0, 2) + be(0, 2)
        out += image
        return out
    }

    /// A record holding a JPEG (grayscale).
    public static func faceRecord(jpeg: [UInt8], width: Int, height: Int, gender: UInt8 = 2) -> [UInt8] {
        faceRecord(image: jpeg, format: .jpeg, width: width, height: height, gender: gender)
    }

    static func be(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * (n - 1 - $0))) } }

    /// The specimen's DG2 with a synthetic face, encoded by libjpeg-turbo (`.jpeg`: grayscale, baseline, at
    /// `quality`) or OpenJPEG (`.jpeg2000`: a JP2 file, colour, 9/7 wavelet, about 10 KB as most passports
    /// store their faces). When `targetSize` is given, the image is padded so that the whole DG2 file has (as
    /// nearly as TLV length octets allow, never less than) that size: JPEG with COM segments (T.81 §B.2.4.5),
    /// JP2 with an XML box before the codestream box (ISO/IEC 15444-1 §I.7.1; readers ignore it) — a JPEG 2000
    /// face is first encoded at about the target size, so a large DG2 holds a larger image, as real ones do.
    public static func dg2(
        face width: Int = 240, height: Int = 320, quality: Int = 75, targetSize: Int? = nil,
        format: ImageFormat = .jpeg
    ) -> [UInt8] {
        // Deterministic: computed once per parameter set and process.
        let key = "\(width)x\(height)q\(quality)t\(targetSize ?? 0)f\(format.rawValue)"
        if let cached = dg2Cache.value(key) { return cached }
        return dg2Cache.insert(
            key,
            makeDG2(
                width: width, height: height, quality: quality, targetSize: targetSize,
                format: format))
    }

    private static let dg2Cache = LockedCache<[UInt8]>()

    /// JPEG 2000 faces without a target size: about this many bytes.
    static let naturalJPEG2000FaceBytes = 10_000
    static let specimenComment = "EMRTDKit synthetic specimen face - not a real person"

    static func makeDG2(width: Int, height: Int, quality: Int, targetSize: Int?, format: ImageFormat) -> [UInt8] {
        let colour = format == .jpeg2000
        func encodeJP2(_ bytes: Int) -> [UInt8] {
            encodeFace { () throws(ImageCodecError) in
                try JPEG2000Codec.encode(
                    raster(width, height, 3, SyntheticFace.rgbPixels(width: width, height: height)),
                    container: .jp2, targetBytes: bytes)
            }
        }
        var base: [UInt8]
        // 46 bytes of 19794-5 headers and about 30 of DG2 TLV around the image.
        var imageTarget = max(2_000, ((targetSize ?? naturalJPEG2000FaceBytes + 80) - 80) * 95 / 100)
        if colour {
            base = encodeJP2(imageTarget)
        } else {
            base = encodeFace { () throws(ImageCodecError) in
                try JPEGCodec.encode(
                    raster(width, height, 1, SyntheticFace.pixels(width: width, height: height)),
                    quality: quality, comments: [Array(specimenComment.utf8)])
            }
        }
        func build(padding: Int) -> [UInt8] {
            let image = colour ? padJP2(base, by: padding) : padJPEG(base, by: padding)
            return dg2(
                faceRecord: faceRecord(image: image, format: format, width: width, height: height, colour: colour))
        }
        var file = build(padding: 0)
        // OpenJPEG's rate control may overshoot a little: aim lower until the face fits the target.
        for _ in 0..<4 {
            guard colour, let target = targetSize, file.count > target, imageTarget > 2_000 else { break }
            imageTarget = max(2_000, imageTarget - (file.count - target) - 500)
            base = encodeJP2(imageTarget)
            file = build(padding: 0)
        }
        guard let target = targetSize, target > file.count else { return file }
        var padding = target - file.count
        for _ in 0..<8 {
            file = build(padding: padding)
            if file.count == target { break }
            padding += target - file.count
            if padding < 9 { padding = 9 }
        }
        if file.count < target { file = build(padding: padding + 8) }
        return file
    }

    /// The generator encodes only its own synthetic rasters of fixed, valid sizes: a codec failure here is a
    /// broken installation, not bad input.
    static func encodeFace(_ body: () throws(ImageCodecError) -> [UInt8]) -> [UInt8] {
        do { return try body() } catch {
            fatalError("the specimen generator could not encode its synthetic image: \(error)")
        }
    }

    static func raster(_ width: Int, _ height: Int, _ channels: Int, _ pixels: [UInt8]) throws(ImageCodecError)
        -> Raster
    {
        guard let r = Raster(width: width, height: height, channels: channels, pixels: pixels) else {
            throw ImageCodecError(
                .encodeFailed, nil, "a \(width) × \(height) × \(channels) raster of \(pixels.count) bytes")
        }
        return r
    }

    /// Adds about `padding` bytes of COM segments after the JPEG's APPn and COM segments.
    static func padJPEG(_ jpeg: [UInt8], by padding: Int) -> [UInt8] {
        guard padding > 0 else { return jpeg }
        let filler = Array("SPECIMEN PADDING ".utf8)
        var comments: [[UInt8]] = []
        var remaining = padding
        while remaining > 0 {
            // Each COM segment costs 4 bytes of marker and length plus its payload (≤ 65533).
            let payload = min(65533, max(1, remaining - 4))
            comments.append((0..<payload).map { filler[$0 % filler.count] })
            remaining -= payload + 4
        }
        return JPEGCodec.insertComments(comments, into: jpeg)
    }

    /// Adds an XML box of `padding` bytes (at least 8, its header) before the JP2 file's `jp2c` box.
    static func padJP2(_ jp2: [UInt8], by padding: Int) -> [UInt8] {
        guard padding > 0 else { return jp2 }
        let open = Array("<specimen>".utf8)
        let close = Array("</specimen>".utf8)
        let filler = Array("SPECIMEN PADDING ".utf8)
        let body: [UInt8]
        if padding >= 8 + open.count + close.count {
            body = open + (0..<(padding - 8 - open.count - close.count)).map { filler[$0 % filler.count] } + close
        } else {
            body = [UInt8](repeating: 0x20, count: max(0, padding - 8))  // XML white space
        }
        let box = be(8 + body.count, 4) + Array("xml ".utf8) + body
        guard let range = try? JPEG2000Header.findCodestream(jp2) else { return jp2 + box }
        let boxStart = range.lowerBound - 8
        return Array(jp2[0..<boxStart]) + box + Array(jp2[boxStart...])
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
            body.append(
                TLVWriter.encode(
                    0xA0,
                    children: [DER.integer(s.otherNames.count)]
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
        var body: [[UInt8]] = [
            TLVWriter.encode(0x5F19, Array(s.issuingAuthority.utf8)),
            TLVWriter.encode(0x5F26, Array(s.dateOfIssue.utf8)),
        ]
        if !s.otherPersons.isEmpty {
            tags.append(0x5F1A)
            body.append(
                TLVWriter.encode(
                    0xA0,
                    children: [DER.integer(s.otherPersons.count)]
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
                if y < 6 { px[y * width + x] = 90 }  // header band
                if (y - 12) % 6 == 0 && y > 10 && x > 4 && x < width - 4 - (y * 7 + seed * 13) % 17 {
                    px[y * width + x] = 60  // text lines
                }
                if x >= width - 18 && x < width - 4 && y >= 10 && y < 30 { px[y * width + x] = 140 }  // photo box
            }
        }
        return encodeFace { () throws(ImageCodecError) in
            try JPEGCodec.encode(raster(width, height, 1, px), quality: 60)
        }
    }
}
