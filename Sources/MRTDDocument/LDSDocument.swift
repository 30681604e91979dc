/// The parsed content of one LDS file.
public enum LDSFileContent: Sendable, Hashable {
    case com(COMFile)
    case sod(SODFile)
    case dg1(DG1File)
    case dg2(DG2File)
    /// DG3, DG4.
    case biometric(BiometricContainerFile)
    /// DG5, DG6, DG7.
    case displayedImage(DisplayedImageFile)
    case dg11(DG11File)
    case dg12(DG12File)
    case dg13(DG13File)
    case dg15(DG15File)
    case dg16(DG16File)
    /// Files this module leaves to others or does not interpret (EF.CardAccess, EF.CardSecurity, DG14 —
    /// SecurityInfos; DG8–DG10; EF.ATR/INFO): the bytes as read.
    case raw([UInt8])

    /// Parses `bytes` as `file`.
    public static func parse(_ file: LDSFile, bytes: [UInt8]) throws(LDSParseError) -> LDSFileContent {
        switch file {
        case .com: return .com(try COMFile(bytes: bytes))
        case .sod: return .sod(try SODFile(bytes: bytes))
        case .dg1: return .dg1(try DG1File(bytes: bytes))
        case .dg2: return .dg2(try DG2File(bytes: bytes))
        case .dg3, .dg4: return .biometric(try BiometricContainerFile(file: file, bytes: bytes))
        case .dg5, .dg6, .dg7: return .displayedImage(try DisplayedImageFile(file: file, bytes: bytes))
        case .dg11: return .dg11(try DG11File(bytes: bytes))
        case .dg12: return .dg12(try DG12File(bytes: bytes))
        case .dg13: return .dg13(try DG13File(bytes: bytes))
        case .dg15: return .dg15(try DG15File(bytes: bytes))
        case .dg16: return .dg16(try DG16File(bytes: bytes))
        case .cardAccess, .cardSecurity, .atrInfo, .dg8, .dg9, .dg10, .dg14: return .raw(bytes)
        }
    }
}

/// The files of one document, raw and parsed: each file's bytes exactly as read, its parsed value when
/// parsing succeeded, and the typed error when it did not (one bad file does not hide the others).
public struct LDSDocument: Sendable, Hashable {
    public let rawFiles: [LDSFile: [UInt8]]
    public let contents: [LDSFile: LDSFileContent]
    public let errors: [LDSFile: LDSParseError]

    public init(files: [LDSFile: [UInt8]]) {
        rawFiles = files
        var c: [LDSFile: LDSFileContent] = [:]
        var e: [LDSFile: LDSParseError] = [:]
        for (file, bytes) in files {
            do { c[file] = try LDSFileContent.parse(file, bytes: bytes) } catch { e[file] = error }
        }
        contents = c
        errors = e
    }

    public var com: COMFile? {
        if case .com(let v)? = contents[.com] { return v }
        return nil
    }
    public var sod: SODFile? {
        if case .sod(let v)? = contents[.sod] { return v }
        return nil
    }
    public var dg1: DG1File? {
        if case .dg1(let v)? = contents[.dg1] { return v }
        return nil
    }
    public var dg2: DG2File? {
        if case .dg2(let v)? = contents[.dg2] { return v }
        return nil
    }
    public var dg11: DG11File? {
        if case .dg11(let v)? = contents[.dg11] { return v }
        return nil
    }
    public var dg12: DG12File? {
        if case .dg12(let v)? = contents[.dg12] { return v }
        return nil
    }
    public var dg15: DG15File? {
        if case .dg15(let v)? = contents[.dg15] { return v }
        return nil
    }
    public var dg16: DG16File? {
        if case .dg16(let v)? = contents[.dg16] { return v }
        return nil
    }
    public var mrz: MRZ? { dg1?.mrz }
    public var faceImage: FaceImageInfo? { dg2?.faceImage }
}
