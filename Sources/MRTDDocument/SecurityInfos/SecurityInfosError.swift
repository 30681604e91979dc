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
        default: code = .malformedEncoding
        }
        self.init(code, offset: error.offset + base, error.reason)
    }

    public var description: String { "SecurityInfos: \(code.rawValue) at offset \(offset): \(reason)" }
}
