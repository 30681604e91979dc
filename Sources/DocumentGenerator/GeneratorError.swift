import MRTDCrypto

/// A failure while generating a document, a certificate or a test PKI.
///
/// `code` is stable (scripts may match on it), `reason` says what went wrong and `step` names the
/// generator step that failed ("certificate.sign", "sod.sign", "profile.load", …). Never carries key material.
public struct GeneratorError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case crypto, invalidInput, unknownProfile, io, malformedManifest
    }
    public var code: Code
    public var step: String
    public var reason: String

    public init(_ code: Code, step: String, _ reason: String) {
        self.code = code
        self.step = step
        self.reason = reason
    }

    public var description: String { "generator \(step) [\(code.rawValue)]: \(reason)" }

    static func crypto(_ e: CryptoError, step: String) -> GeneratorError {
        GeneratorError(.crypto, step: step, e.description)
    }
}

/// Runs a throwing crypto call and maps its error to a `GeneratorError` naming `step`.
func withCrypto<T>(_ step: String, _ body: () throws(CryptoError) -> T) throws(GeneratorError) -> T {
    do { return try body() } catch { throw GeneratorError.crypto(error, step: step) }
}
