public import Foundation

/// Signicat's API error body (docs/architecture.md §8.1 item 1, [doc]):
/// `{type, title, code, status, traceId, detail, invalidParams[{name, reason}]}`, sent together with
/// an `X-TRACE-ID` header. Every field is optional on input (servers differ); unknown fields are
/// ignored. An OAuth token endpoint's `{error, error_description}` (RFC 6749 §5.2) is mapped onto
/// `code` and `detail` by `parse(_:)`.
public struct SignicatErrorObject: Codable, Hashable, Sendable {
    public struct InvalidParam: Codable, Hashable, Sendable {
        public var name: String?
        public var reason: String?
        public init(name: String?, reason: String?) {
            self.name = name
            self.reason = reason
        }
    }

    public var type: String?
    public var title: String?
    public var code: String?
    public var status: Int?
    public var traceId: String?
    public var detail: String?
    public var invalidParams: [InvalidParam]?

    public init(
        type: String? = nil, title: String? = nil, code: String? = nil, status: Int? = nil,
        traceId: String? = nil, detail: String? = nil, invalidParams: [InvalidParam]? = nil
    ) {
        self.type = type
        self.title = title
        self.code = code
        self.status = status
        self.traceId = traceId
        self.detail = detail
        self.invalidParams = invalidParams
    }

    private enum CodingKeys: String, CodingKey {
        case type, title, code, status, traceId, detail, invalidParams
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try? c.decodeIfPresent(String.self, forKey: .type)
        title = try? c.decodeIfPresent(String.self, forKey: .title)
        // `code` is a string in Signicat's examples; tolerate a number.
        if let s = try? c.decodeIfPresent(String.self, forKey: .code) {
            code = s
        } else if let i = try? c.decodeIfPresent(Int.self, forKey: .code) {
            code = String(i)
        }
        status = try? c.decodeIfPresent(Int.self, forKey: .status)
        traceId = try? c.decodeIfPresent(String.self, forKey: .traceId)
        detail = try? c.decodeIfPresent(String.self, forKey: .detail)
        invalidParams = try? c.decodeIfPresent([InvalidParam].self, forKey: .invalidParams)
    }

    /// True when no field carries anything.
    public var isEmpty: Bool {
        type == nil && title == nil && code == nil && status == nil && traceId == nil && detail == nil
            && (invalidParams ?? []).isEmpty
    }

    /// Parses an error body: Signicat's object, or an OAuth `{error, error_description}`.
    /// Nil when the body is not a JSON object or carries none of these fields.
    public static func parse(_ body: Data) -> SignicatErrorObject? {
        guard let v = try? JSONValue.parse(body), case .object(let o) = v else { return nil }
        var e = (try? JSONDecoder().decode(SignicatErrorObject.self, from: body)) ?? SignicatErrorObject()
        if e.code == nil, let oauth = o["error"]?.stringValue { e.code = oauth }
        if e.detail == nil, let d = o["error_description"]?.stringValue { e.detail = d }
        return e.isEmpty ? nil : e
    }

    /// A copy with every string passed through the redactor.
    public func redacted(by r: Redactor) -> SignicatErrorObject {
        SignicatErrorObject(
            type: type.map(r.redact), title: title.map(r.redact), code: code.map(r.redact),
            status: status, traceId: traceId.map(r.redact), detail: detail.map(r.redact),
            invalidParams: invalidParams?.map {
                InvalidParam(name: $0.name.map(r.redact), reason: $0.reason.map(r.redact))
            })
    }
}
