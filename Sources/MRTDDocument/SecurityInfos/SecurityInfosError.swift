public import ASN1TLV

/// Why a SecurityInfos structure (EF.CardAccess, EF.CardSecurity, DG14) could not be read.
///
/// `offset` is the byte offset in the file handed to the parser where the problem was found.
public struct SecurityInfosError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The BER/DER encoding itself is broken (truncated, bad length, trailing bytes, …).
        case malformedEncoding
        /// The encoding is fine but the structure is not the one ICAO 9303-11 §9.2 / TR-03110-3 define.
        case unexpectedStructure
        /// A value is out of range or of the wrong kind (negative version, empty key, …).
        case invalidValue
        /// The EF.CardSecurity ContentInfo does not carry SignedData with id-SecurityObject content.
        case notCardSecurity
        /// The file or a structure in it exceeds a limit of `LDSLimits` or `TLVLimits` (the reason names it).
        case limitExceeded
    }

    public var code: Code
    public var offset: Int
    public var reason: String

    public init(_ code: Code, offset: Int, _ reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }

    /// Wraps a TLV error, shifting its offset by `base`.
    public init(_ error: TLVError, base: Int = 0) {
        let code: Code
        switch error.code {
        case .unexpectedTag: code = .unexpectedStructure
        case .invalidValue: code = .invalidValue
        case .tooManyElements, .depthExceeded, .lengthTooLarge: code = .limitExceeded
        default: code = .malformedEncoding
        }
        self.init(code, offset: error.offset + base, error.reason)
    }

    /// `limitExceeded` when a file of `length` bytes is above `file`'s cap (`LDSLimits`).
    static func checkLimit(_ file: LDSFile, length: Int) throws(SecurityInfosError) {
        if let e = LDSLimits.violation(file, length: length) {
            throw SecurityInfosError(.limitExceeded, offset: 0, e.reason)
        }
    }

    public var description: String { "SecurityInfos: \(code.rawValue) at offset \(offset): \(reason)" }
}
