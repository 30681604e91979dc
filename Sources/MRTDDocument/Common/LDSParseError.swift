public import ASN1TLV

/// The one error type of LDS parsing (docs/architecture.md §3.5): a stable `code`, the `file` being parsed, the byte
/// `offset` in that file where the problem was found, and a `reason` for humans. Reasons never quote
/// personal data or MRZ contents.
public struct LDSParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The TLV structure itself is broken (truncated, bad length, length beyond the input, too deep…).
        case malformedTLV
        /// A data object has a different tag than the specification requires at this place.
        case unexpectedTag
        /// A mandatory data object or element is absent.
        case missingElement
        /// A data object is present but its value is not acceptable (wrong size, bad characters, out of range).
        case invalidValue
        /// The structure is well formed but uses a version or format this parser does not implement.
        case unsupported
        /// The MRZ text does not have the shape of any MRZ format (line count, line length, characters).
        case invalidMRZ
        /// An MRZ check digit does not match its field (raised only by `MRZ.validate()`).
        case checkDigitMismatch
        /// The file or a structure in it exceeds a limit of `LDSLimits` or `TLVLimits` (the reason names it).
        case limitExceeded
    }

    public var file: LDSFile?
    public var offset: Int
    public var code: Code
    public var reason: String

    public init(_ code: Code, file: LDSFile?, offset: Int, _ reason: String) {
        self.code = code
        self.file = file
        self.offset = offset
        self.reason = reason
    }

    /// Wraps an ASN1TLV error; `base` is added to its offset (the position of the parsed slice in the file).
    public init(_ error: TLVError, file: LDSFile?, base: Int = 0) {
        let code: Code
        switch error.code {
        case .unexpectedTag: code = .unexpectedTag
        case .invalidValue: code = .invalidValue
        case .tooManyElements, .depthExceeded, .lengthTooLarge: code = .limitExceeded
        default: code = .malformedTLV
        }
        self.init(code, file: file, offset: base + error.offset, "\(error.code.rawValue): \(error.reason)")
    }

    public var description: String {
        "\(file.map { $0.rawValue } ?? "LDS") \(code.rawValue) at offset \(offset): \(reason)"
    }
}
