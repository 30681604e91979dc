import CanonicalJSON
import Foundation

/// Small JSON helpers for the API: request bodies are parsed with JSONSerialization (bounded by the
/// server's body limit before they get here); answers are built from dictionaries with sorted keys.
enum JSON {
    /// Parses a request body that must be a JSON object; the message says what is wrong, never echoing the body.
    static func object(_ body: [UInt8]) throws(APIError) -> [String: Any] {
        guard !body.isEmpty else {
            throw APIError(400, "malformed_json", "the request body is empty; a JSON object is expected")
        }
        let value: Any
        do {
            // parsed in place (no copy of the body, which may hold access data and is overwritten once handled)
            value = try body.withUnsafeBytes { b in
                try JSONSerialization.jsonObject(
                    with: Data(
                        bytesNoCopy: UnsafeMutableRawPointer(mutating: b.baseAddress!), count: b.count,
                        deallocator: .none), options: [])
            }
        } catch {
            throw APIError(400, "malformed_json", "the request body is not valid JSON")
        }
        guard let object = value as? [String: Any] else {
            throw APIError(400, "malformed_json", "the request body must be a JSON object")
        }
        return object
    }

    static func encode(_ value: [String: Any]) -> [UInt8] {
        [UInt8](CanonicalJSON.data(object: value, .compact))
    }

    /// `value` with `"key": <raw JSON>` added (the raw text is inserted as is: the report exactly as
    /// `emrtd read --json` prints it).
    static func encode(_ value: [String: Any], adding members: [(key: String, raw: [UInt8])]) -> [UInt8] {
        var out = encode(value)
        guard out.last == UInt8(ascii: "}") else { return out }
        for (key, raw) in members.sorted(by: { $0.key < $1.key }) {
            out.removeLast()
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            out += encode(["k": key]).dropFirst(5).dropLast()  // the key, JSON-escaped: {"k":"…"} → "…"
            out.append(UInt8(ascii: ":"))
            out += raw
            out.append(UInt8(ascii: "}"))
        }
        return out
    }
}

/// An API failure: HTTP status, a stable code, a message without secrets.
struct APIError: Error {
    var status: Int
    var code: String
    var message: String
    /// The methods the path has, for a 405's `Allow` header.
    var allow: String? = nil
    /// Seconds after which a busy service may be asked again (`Retry-After`).
    var retryAfter: Int? = nil
    init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    var body: [UInt8] { JSON.encode(["error": ["code": code, "message": message]]) }

    /// The server's 413 (a body above the path's limit).
    static let tooLarge = APIError(413, "body_too_large", "the request body is larger than the service accepts")

    /// A field name the request should not hold. The name is quoted only when it looks like one of the API's
    /// field names (camelCase: a lowercase ASCII letter, then ASCII letters and digits, at most 32): a client that
    /// put access data where a key goes must not get it echoed back into an error.
    static func unknownField(_ name: String, code: String = "bad_request", in prefix: String = "") -> APIError {
        let looksLikeAName =
            name.count <= 32 && (name.first.map { $0.isASCII && $0.isLowercase } ?? false)
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return APIError(400, code, prefix + (looksLikeAName ? "unknown field '\(name)'" : "an unknown field"))
    }
}
