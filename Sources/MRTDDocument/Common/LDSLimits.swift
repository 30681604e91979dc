/// The largest file of each kind the LDS parsers and the reader accept (docs/reliability.md, "Limits").
/// Checked on the declared length before a file is read from a chip (`FileReader`) and on the byte count
/// before a parser builds anything (`LDSReader.parseFile`, `SODFile`, `SecurityInfos`), so an oversized
/// file costs neither the read nor the parse. Each cap leaves room for the largest genuine file known.
public enum LDSLimits {
    /// EF.COM: 1 KiB. The file holds two version strings and a tag list of at most 16 data-group tags
    /// (ICAO 9303-10 §4.6.1): under 40 bytes.
    public static let maxCOMBytes = 1024

    /// EF.ATR/INFO: 1 KiB (ISO/IEC 7816-4 §8.2.1.1 answer-to-reset information: a few dozen bytes).
    public static let maxATRInfoBytes = 1024

    /// EF.CardAccess: 16 KiB. It lists a handful of SecurityInfos (PACE, its domain parameters,
    /// optionally terminal authentication): a few hundred bytes on genuine documents.
    public static let maxCardAccessBytes = 16 * 1024

    /// EF.SOD and EF.CardSecurity: 64 KiB. A SignedData with the document signer certificate and 16 hashes
    /// is 2–8 KB (the largest, with a 4096-bit RSA signer and SHA-512, under 10 KB).
    public static let maxSignedFileBytes = 64 * 1024

    /// Text and key data groups (DG1 MRZ, DG11 additional personal details, DG13 optional details, DG14
    /// security options, DG15 Active Authentication key, DG16 persons to notify): 64 KiB. Genuine ones are
    /// 0.1–4 KB (DG1: at most 90 characters).
    /// Parsers of these data groups build a `TLVNode` tree and text: their cost grows with the size.
    public static let maxSmallDataGroupBytes = 64 * 1024

    /// Image-bearing data groups (DG2 face, DG3 fingers, DG4 irises, DG5–DG7 displayed images, DG8–DG10,
    /// DG12 with document images): 2 MiB. The largest genuine one seen is the ISO/IEC 39794-5 sample DG2 of
    /// 876 KB; chips hold 0.1–1 MB in all.
    public static let maxLargeDataGroupBytes = 2 * 1024 * 1024

    /// Largest RSA Active Authentication key in DG15: 4096 bits. Chips carry 1024–2048-bit AA keys (ICAO
    /// 9303-11 §6.1: the chip signs, and chip coprocessors top out at 4096 bits). Other RSA keys are bounded
    /// by `CryptoLimits.maxRSAModulusBits` (8192).
    public static let maxActiveAuthenticationRSABits = 4096

    /// The largest of all caps: what a reader may need to hold for one file.
    public static let maxFileBytes = maxLargeDataGroupBytes

    /// The cap of `file`'s kind.
    public static func maximumLength(of file: LDSFile) -> Int {
        switch file {
        case .com: return maxCOMBytes
        case .atrInfo: return maxATRInfoBytes
        case .cardAccess: return maxCardAccessBytes
        case .sod, .cardSecurity: return maxSignedFileBytes
        case .dg1, .dg11, .dg13, .dg14, .dg15, .dg16: return maxSmallDataGroupBytes
        case .dg2, .dg3, .dg4, .dg5, .dg6, .dg7, .dg8, .dg9, .dg10, .dg12: return maxLargeDataGroupBytes
        }
    }

    /// The name of the constant behind `maximumLength(of:)`, for error messages.
    public static func limitName(of file: LDSFile) -> String {
        switch file {
        case .com: return "maxCOMBytes"
        case .atrInfo: return "maxATRInfoBytes"
        case .cardAccess: return "maxCardAccessBytes"
        case .sod, .cardSecurity: return "maxSignedFileBytes"
        case .dg1, .dg11, .dg13, .dg14, .dg15, .dg16: return "maxSmallDataGroupBytes"
        case .dg2, .dg3, .dg4, .dg5, .dg6, .dg7, .dg8, .dg9, .dg10, .dg12: return "maxLargeDataGroupBytes"
        }
    }

    /// The error for a file of `length` bytes (declared or held) above its kind's cap; nil within it.
    public static func violation(_ file: LDSFile, length: Int) -> LDSParseError? {
        let cap = maximumLength(of: file)
        guard length > cap else { return nil }
        return LDSParseError(
            .limitExceeded, file: file, offset: 0,
            "\(file.rawValue) of \(length) bytes exceeds the limit of \(cap) bytes (LDSLimits.\(limitName(of: file)))")
    }

    /// Throws `limitExceeded` when `length` is above `file`'s cap.
    public static func check(_ file: LDSFile, length: Int) throws(LDSParseError) {
        if let e = violation(file, length: length) { throw e }
    }
}
