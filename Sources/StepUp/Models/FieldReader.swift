import Foundation

/// A coding key for any string.
struct AnyKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

/// Reads fields of one JSON object and turns every structural problem into a `StepUpError` that
/// names the field (as a dotted path) and the expected type. Unknown extra fields are ignored.
struct FieldReader {
    let container: KeyedDecodingContainer<AnyKey>
    let step: StepUpError.Step
    let prefix: String

    init(_ decoder: any Decoder, step: StepUpError.Step) throws {
        self.step = step
        let path = decoder.codingPath.map(\.stringValue).filter { $0 != "signicatOperation" }
        prefix = path.isEmpty ? "" : path.joined(separator: ".") + "."
        do {
            container = try decoder.container(keyedBy: AnyKey.self)
        } catch {
            let field = path.isEmpty ? nil : path.joined(separator: ".")
            throw StepUpError(
                .notAnObject, step: step, field: field, expected: "a JSON object",
                reason: "the value is not a JSON object")
        }
    }

    func path(_ key: String) -> String { prefix + key }

    func has(_ key: String) -> Bool {
        guard container.contains(AnyKey(key)) else { return false }
        return (try? container.decodeNil(forKey: AnyKey(key))) == false
    }

    func missing(_ key: String, expected: String) -> StepUpError {
        StepUpError(
            .missingField, step: step, field: path(key), expected: expected,
            reason: "required field `\(path(key))` is missing")
    }

    private func typeError(_ key: String, _ expected: String) -> StepUpError {
        StepUpError(
            .invalidFieldType, step: step, field: path(key), expected: expected,
            reason: "field `\(path(key))` has the wrong JSON type")
    }

    /// Decodes `key` if present and not null. Type mismatches become `invalidFieldType`;
    /// a `StepUpError` thrown by a nested model passes through unchanged.
    func optional<T: Decodable>(_ type: T.Type, _ key: String, expected: String) throws -> T? {
        guard has(key) else { return nil }
        do {
            return try container.decode(T.self, forKey: AnyKey(key))
        } catch let e as StepUpError {
            throw e
        } catch {
            throw typeError(key, expected)
        }
    }

    func required<T: Decodable>(_ type: T.Type, _ key: String, expected: String) throws -> T {
        guard let v = try optional(type, key, expected: expected) else { throw missing(key, expected: expected) }
        return v
    }
}

/// The ISO/RFC 4122 textual UUID check used for `userId` and `processId` (8-4-4-4-12 hex digits).
enum UUIDText {
    static func isValid(_ s: String) -> Bool {
        UUID(uuidString: s) != nil && s.count == 36
    }
}
