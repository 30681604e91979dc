/// Errors raised while reading BER-TLV / DER.
///
/// `offset` is the byte offset, relative to the start of the buffer handed to the parser,
/// where the problem was found, so that callers can name the file and the place.
public struct TLVError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case truncated
        case invalidTag
        case invalidLength
        case lengthTooLarge
        case indefiniteLengthNotAllowed
        case nonMinimalEncoding
        case depthExceeded
        /// More data objects than `TLVParser.Rules.maxElements` (`TLVLimits.maxElements`).
        case tooManyElements
        case trailingData
        case unexpectedTag
        case invalidValue
    }

    public var code: Code
    public var offset: Int
    public var reason: String

    public init(_ code: Code, offset: Int, _ reason: String) {
        self.code = code
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "\(code.rawValue) at offset \(offset): \(reason)" }
}
