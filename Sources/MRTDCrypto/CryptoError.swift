internal import CLibCrypto

/// A cryptographic failure, naming the OpenSSL (or internal) function that failed.
///
/// The reason never carries key material: callers pass only lengths, algorithm names and
/// OpenSSL's own error strings (which describe the failing routine, not the data).
public struct CryptoError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case invalidKey, invalidInput, invalidPoint, invalidParameters, unsupportedAlgorithm
        case badPadding, verificationFailed, openSSL
        /// A key or domain parameter beyond `CryptoLimits` (the reason names the limit).
        case limitExceeded
    }
    public var code: Code
    public var function: String
    public var reason: String
    public init(_ code: Code, function: String, _ reason: String) {
        self.code = code
        self.function = function
        self.reason = reason
    }
    public var description: String { "\(function): \(reason)" }
}

/// The one checked helper for libcrypto (docs/architecture.md §3.1): OpenSSL returns 1 on success for nearly
/// every routine used here; anything else becomes a `CryptoError` naming the function, with the
/// thread's OpenSSL error queue drained into the reason.
enum OpenSSL {
    /// Drains the OpenSSL error queue of this thread into one string (and empties it).
    static func drainErrors() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let text = buffer.withUnsafeBufferPointer { p in
                String(decoding: p.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            messages.append(text)
        }
        return messages.isEmpty ? "failed" : messages.joined(separator: "; ")
    }

    static func error(_ function: String, code: CryptoError.Code = .openSSL) -> CryptoError {
        CryptoError(code, function: function, drainErrors())
    }

    /// Checks a return code that means success when it is 1.
    @inline(__always)
    static func check(_ rc: Int32, _ function: String, code: CryptoError.Code = .openSSL) throws(CryptoError) {
        if rc != 1 { throw error(function, code: code) }
    }

    /// Checks that an allocating call returned non-nil.
    @inline(__always)
    static func check<T>(_ value: T?, _ function: String) throws(CryptoError) -> T {
        guard let value else { throw error(function) }
        return value
    }
}
