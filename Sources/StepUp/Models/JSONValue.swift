import CanonicalJSON
public import Foundation

/// Any JSON value: used to keep responses whose shape is not public (the start step-up answer), to
/// print results, and to look at raw input before strict decoding.
public enum JSONValue: Hashable, Sendable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
            return
        }
        if let b = try? c.decode(Bool.self) {
            self = .bool(b)
            return
        }
        if let i = try? c.decode(Int64.self) {
            self = .integer(i)
            return
        }
        if let d = try? c.decode(Double.self) {
            self = .number(d)
            return
        }
        if let s = try? c.decode(String.self) {
            self = .string(s)
            return
        }
        if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
            return
        }
        self = .object(try c.decode([String: JSONValue].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .integer(let i): try c.encode(i)
        case .number(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// Converts any `Encodable` into a `JSONValue`.
    public init(encoding value: some Encodable) throws {
        let data = try CanonicalJSON.data(value, .compact)
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Parses JSON bytes.
    public static func parse(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// A short name of the JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Replaces every occurrence of the redactor's secrets in every string (keys and values).
    public func redacted(by redactor: Redactor) -> JSONValue {
        switch self {
        case .string(let s): return .string(redactor.redact(s))
        case .array(let a): return .array(a.map { $0.redacted(by: redactor) })
        case .object(let o):
            var r: [String: JSONValue] = [:]
            for (k, v) in o { r[redactor.redact(k)] = v.redacted(by: redactor) }
            return .object(r)
        default: return self
        }
    }

    /// Pretty, key-sorted JSON text (what the CLI prints).
    public func prettyPrinted() -> String {
        guard let d = try? CanonicalJSON.data(self), let s = String(data: d, encoding: .utf8) else { return "null" }
        return s
    }
}
