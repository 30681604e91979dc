import ASN1TLV
import MRTDCrypto

/// The one error type of `MRTDTrust` (docs/architecture.md §3.5): a stable code, the failing step, a reason.
///
/// Reasons name certificates and algorithms only; they never carry document data or secrets.
public struct TrustError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Codable {
        /// The ASN.1 structure is not what the specification defines.
        case malformed
        /// An algorithm (OID or parameters) this module does not implement.
        case unsupportedAlgorithm
        /// A signature does not verify.
        case signatureInvalid
        /// A signed attribute or an eContent does not match (RFC 5652 §11.1/§11.2).
        case attributeMismatch
        /// The signer's certificate is neither embedded nor in the trust store.
        case signerNotFound
        /// A certificate chain cannot be built or a certificate is unusable.
        case untrusted
        /// A certificate or CRL is outside its validity at the relevant time.
        case expired
        /// An input file cannot be read or is of an unknown kind.
        case unreadable
        /// An input exceeds a limit of `TrustLimits`, `CryptoLimits` or `TLVLimits` (the reason names it).
        case limitExceeded
    }

    /// Where in the processing the failure happened.
    public enum Step: String, Sendable, Codable {
        case certificate, crl, cms, signedAttributes, signature, masterList, trustStore, passiveAuthentication
    }

    public var code: Code
    public var step: Step
    public var reason: String

    public init(_ code: Code, _ step: Step, _ reason: String) {
        (self.code, self.step, self.reason) = (code, step, reason)
    }

    public var description: String { "\(step.rawValue): \(code.rawValue): \(reason)" }
}

/// Runs ASN.1 reading code and maps its `TLVError` to a `TrustError` of the given step. `what` is only
/// evaluated on failure (it often names a certificate, whose rendering costs more than the work).
@inline(__always)
func asn1<T>(_ step: TrustError.Step, _ what: @autoclosure () -> String, _ body: () throws(TLVError) -> T)
    throws(TrustError) -> T
{
    try translating(body) { (error: TLVError) in
        let limit = error.code == .tooManyElements || error.code == .depthExceeded || error.code == .lengthTooLarge
        return TrustError(limit ? .limitExceeded : .malformed, step, "\(what()): \(error.description)")
    }
}

/// Runs crypto code and maps its `CryptoError` to a `TrustError` of the given step (`what`: on failure only).
@inline(__always)
func crypto<T>(_ step: TrustError.Step, _ what: @autoclosure () -> String, _ body: () throws(CryptoError) -> T)
    throws(TrustError) -> T
{
    try translating(body) { (error: CryptoError) in
        let code: TrustError.Code
        switch error.code {
        case .unsupportedAlgorithm: code = .unsupportedAlgorithm
        case .limitExceeded: code = .limitExceeded
        default: code = .malformed
        }
        return TrustError(code, step, "\(what()): \(error.description)")
    }
}

/// Runs `body`, turning a failure of a lower layer into the `TrustError` `translate` makes of it.
@inline(__always)
private func translating<E: Error, T>(_ body: () throws(E) -> T, _ translate: (E) -> TrustError) throws(TrustError)
    -> T
{
    do {
        return try body()
    } catch {
        throw translate(error)
    }
}
