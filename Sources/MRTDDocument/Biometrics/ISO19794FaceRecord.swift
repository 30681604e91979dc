/// A facial record in ISO/IEC 19794-5:2005 binary format, as carried in DG2's biometric data block
/// (ICAO 9303-10 §4.7.2, ISO/IEC 19794-5 §5.4–5.8):
///
/// ```
/// Facial Record Header (14): 'FAC\0' | version '010\0' | record length (4) | number of facial images (2)
/// per image:
///   Facial Information (20): block length (4) | feature points (2) | gender (1) | eye colour (1) |
///                            hair colour (1) | property mask (3) | expression (2) | pose yaw/pitch/roll (3) |
///                            pose uncertainty yaw/pitch/roll (3)
///   Feature Points (8 each): type (1) | major<<4|minor (1) | x (2) | y (2) | reserved (2)
///   Image Information (12):  face image type (1) | image data type (1) | width (2) | height (2) |
///                            colour space (1) | source type (1) | device type (2) | quality (2)
///   Image Data: the rest of the block
/// ```
public struct ISO19794FaceRecord: Sendable, Hashable {
    /// "010" for the 2005 edition.
    public let version: String
    public let recordLength: Int
    public let images: [FaceImage]

    public struct FeaturePoint: Sendable, Hashable {
        public let type: Int
        public let majorCode: Int
        public let minorCode: Int
        public let x: Int
        public let y: Int
    }

    public struct FaceImage: Sendable, Hashable {
        public let blockLength: Int
        public let gender: Int
        public let eyeColour: Int
        public let hairColour: Int
        /// 24-bit property mask (§5.5.6: features present, glasses, moustache, beard…).
        public let propertyMask: Int
        /// §5.5.7: 0 unspecified, 1 neutral, 2 smile closed jaw, …
        public let expression: Int
        public let poseYaw: Int, posePitch: Int, poseRoll: Int
        public let poseUncertaintyYaw: Int, poseUncertaintyPitch: Int, poseUncertaintyRoll: Int
        public let featurePoints: [FeaturePoint]
        /// §5.7.1: 0 basic, 1 full frontal, 2 token frontal.
        public let faceImageType: Int
        /// §5.7.2: 0 JPEG, 1 JPEG 2000.
        public let imageDataType: Int
        public let width: Int
        public let height: Int
        /// §5.7.5: 0 unspecified, 1 sRGB 24-bit, 2 YUV422, 3 greyscale 8-bit, 4 other.
        public let colourSpace: Int
        /// §5.7.6: 0 unspecified, 1 static photo unknown source, 2 digital camera, 3 scanner, …
        public let sourceType: Int
        public let deviceType: Int
        public let quality: Int
        /// The encoded image exactly as stored.
        public let imageData: [UInt8]

        /// The format from the image data type, confirmed (or overridden) by the magic bytes.
        public var imageFormat: ImageFormat {
            let detected = ImageFormat.detect(imageData)
            if detected != .unknown { return detected }
            switch imageDataType {
            case 0: return .jpeg
            case 1: return .jpeg2000
            default: return .unknown
            }
        }
    }

    /// Parses a facial record. `offset` is the position of `bytes` in the file (for error offsets).
    public init(bytes: [UInt8], file: LDSFile? = .dg2, offset: Int = 0) throws(LDSParseError) {
        let r = LDSReader(file: file)
        let b = bytes[...]
        func err(_ at: Int, _ reason: String) -> LDSParseError { r.error(.invalidValue, at: offset + at, reason) }
        func u(_ at: Int, _ size: Int, _ what: String) throws(LDSParseError) -> Int {
            do { return try r.uint(b, at: at, size: size, what) } catch {
                throw LDSParseError(error.code, file: file, offset: offset + at, error.reason)
            }
        }
        guard bytes.count >= 14 else { throw err(0, "facial record header needs 14 bytes, found \(bytes.count)") }
        guard bytes[0..<4] == [0x46, 0x41, 0x43, 0x00] else { throw err(0, "format identifier is not 'FAC\\0'") }
        guard bytes[7] == 0 else { throw err(4, "version is not NUL-terminated") }
        version = LDSText.decode(bytes[4..<7])
        recordLength = try u(8, 4, "record length")
        guard recordLength <= bytes.count, recordLength >= 14 else {
            throw err(8, "record length \(recordLength) does not fit the \(bytes.count) bytes present")
        }
        let count = try u(12, 2, "number of facial images")
        var images: [FaceImage] = []
        var i = 14
        for _ in 0..<count {
            let start = i
            let blockLength = try u(i, 4, "facial record data length")
            guard blockLength >= 32, blockLength <= recordLength - start else {
                throw err(i, "facial record data length \(blockLength) does not fit the record")
            }
            let end = start + blockLength
            let points = try u(i + 4, 2, "number of feature points")
            guard 20 + 8 * points + 12 <= blockLength else {
                throw err(i + 4, "\(points) feature points do not fit a block of \(blockLength) bytes")
            }
            let gender = try u(i + 6, 1, "gender")
            let eye = try u(i + 7, 1, "eye colour")
            let hair = try u(i + 8, 1, "hair colour")
            let mask = try u(i + 9, 3, "property mask")
            let expression = try u(i + 12, 2, "expression")
            let yaw = try u(i + 14, 1, "pose")
            let pitch = try u(i + 15, 1, "pose")
            let roll = try u(i + 16, 1, "pose")
            let uy = try u(i + 17, 1, "pose")
            let up = try u(i + 18, 1, "pose")
            let ur = try u(i + 19, 1, "pose")
            i += 20
            var fps: [FeaturePoint] = []
            for _ in 0..<points {
                let type = try u(i, 1, "feature type")
                let code = try u(i + 1, 1, "feature point")
                fps.append(
                    FeaturePoint(
                        type: type, majorCode: code >> 4, minorCode: code & 0x0F,
                        x: try u(i + 2, 2, "x"), y: try u(i + 4, 2, "y")))
                i += 8
            }
            let faceType = try u(i, 1, "face image type")
            let dataType = try u(i + 1, 1, "image data type")
            let width = try u(i + 2, 2, "width")
            let height = try u(i + 4, 2, "height")
            let colour = try u(i + 6, 1, "colour space")
            let source = try u(i + 7, 1, "source type")
            let device = try u(i + 8, 2, "device type")
            let quality = try u(i + 10, 2, "quality")
            i += 12
            images.append(
                FaceImage(
                    blockLength: blockLength, gender: gender, eyeColour: eye, hairColour: hair,
                    propertyMask: mask, expression: expression, poseYaw: yaw, posePitch: pitch,
                    poseRoll: roll, poseUncertaintyYaw: uy, poseUncertaintyPitch: up,
                    poseUncertaintyRoll: ur, featurePoints: fps, faceImageType: faceType,
                    imageDataType: dataType, width: width, height: height, colourSpace: colour,
                    sourceType: source, deviceType: device, quality: quality,
                    imageData: Array(bytes[i..<end])))
            i = end
        }
        guard !images.isEmpty else { throw err(12, "no facial images") }
        self.images = images
    }
}
