import CanonicalJSON
public import Foundation

/// MobileID's operation context (docs/architecture.md §8.1 item 2, [doc]):
/// `{"context_content_b64": <base64 of the Signicat operation object>, "context_mime": "application/json"}`.
public struct OperationContext: Codable, Hashable, Sendable {
    /// The media type the glue accepts (parameters such as `; charset=utf-8` are allowed, case ignored).
    public static let acceptedMime = "application/json"

    public var contextContentB64: String
    public var contextMime: String

    public init(contextContentB64: String, contextMime: String = OperationContext.acceptedMime) {
        self.contextContentB64 = contextContentB64
        self.contextMime = contextMime
    }

    /// Wraps an operation document (standard padded base64).
    public init(document: SignicatOperationDocument) throws {
        self.init(contextContentB64: try CanonicalJSON.data(document, .compact).base64EncodedString())
    }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, step: .decodeContext)
        contextContentB64 = try r.required(String.self, "context_content_b64", expected: "a base64 string")
        contextMime = try r.required(String.self, "context_mime", expected: "\"application/json\"")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        try c.encode(contextContentB64, forKey: AnyKey("context_content_b64"))
        try c.encode(contextMime, forKey: AnyKey("context_mime"))
    }

    /// Checks the media type, decodes the base64 and the operation object inside
    /// (docs/architecture.md §8.2: mime, base64, JSON object, then the operation rules).
    public func decodeOperation() throws -> SignicatOperationDocument {
        let mediaType =
            contextMime.split(separator: ";", maxSplits: 1).first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard mediaType == Self.acceptedMime else {
            throw StepUpError(
                .unsupportedMimeType, step: .decodeContext, field: "context_mime",
                expected: "\"application/json\"",
                reason: "context_mime \"\(contextMime.prefix(64))\" is not application/json")
        }
        let bytes = try Base64Lenient.decode(contextContentB64, field: "context_content_b64", step: .decodeContext)
        return try SignicatOperationDocument.decode(bytes)
    }
}

/// Which MobileID result the context came from.
public enum OperationContextPhase: String, Codable, Sendable, Hashable {
    /// `pre_operation_context` of `startAuthenticationResult`: routing only.
    case pre = "pre_operation_context"
    /// `post_operation_context` of `finishAuthenticationResult`: the whole object.
    case post = "post_operation_context"
}

/// A context as MobileID hands it over: `{"pre_operation_context": {...}}`,
/// `{"post_operation_context": {...}}`, or the bare context object (`phase == nil`).
public struct OperationContextDocument: Codable, Hashable, Sendable {
    public var phase: OperationContextPhase?
    public var context: OperationContext
    /// The input held both a pre- and a post-operation context; the post one (the operation object that carries
    /// the proofing values) was used.
    public var hadBothPhases = false

    public init(phase: OperationContextPhase?, context: OperationContext) {
        self.phase = phase
        self.context = context
    }

    public init(from decoder: any Decoder) throws {
        let r = try FieldReader(decoder, step: .decodeContext)
        let hasPre = r.container.contains(AnyKey(OperationContextPhase.pre.rawValue))
        let hasPost = r.container.contains(AnyKey(OperationContextPhase.post.rawValue))
        // Both present: the post-operation context is the one that carries the proofing values.
        if hasPost {
            phase = .post
            hadBothPhases = hasPre
            context = try r.required(OperationContext.self, OperationContextPhase.post.rawValue, expected: "an object")
        } else if hasPre {
            phase = .pre
            context = try r.required(OperationContext.self, OperationContextPhase.pre.rawValue, expected: "an object")
        } else {
            phase = nil
            context = try OperationContext(from: decoder)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if let phase {
            var c = encoder.container(keyedBy: AnyKey.self)
            try c.encode(context, forKey: AnyKey(phase.rawValue))
        } else {
            try context.encode(to: encoder)
        }
    }
}

/// What `StepUpInput.parse` found.
public struct DecodedStepUpInput: Hashable, Sendable {
    /// Nil when the input was a bare context or an operation object.
    public var phase: OperationContextPhase?
    /// Nil when the input was the operation object itself.
    public var context: OperationContext?
    public var document: SignicatOperationDocument
    public var operation: SignicatOperation { document.operation }
    /// What the caller should be told about the input (e.g. which of two contexts was used).
    public var warnings: [StepUpWarning] = []
}

/// Accepts every shape the CLI takes as `CONTEXT_JSON`: a wrapped context (pre/post), a bare
/// context, or the Signicat operation object itself (wrapped in `signicatOperation` or bare).
public enum StepUpInput {
    public static func parse(_ data: Data) throws -> DecodedStepUpInput {
        let v: JSONValue
        do { v = try JSONValue.parse(data) } catch {
            throw StepUpError(
                .malformedJSON, step: .decodeContext, expected: "a JSON object",
                reason: "the input is not valid JSON")
        }
        guard case .object(let o) = v else {
            throw StepUpError(
                .notAnObject, step: .decodeContext, expected: "a JSON object",
                reason: "the input is JSON \(v.typeName), not an object")
        }
        let contextKeys = [
            OperationContextPhase.pre.rawValue, OperationContextPhase.post.rawValue,
            "context_content_b64", "context_mime",
        ]
        if contextKeys.contains(where: { o[$0] != nil }) {
            let doc: OperationContextDocument
            do {
                doc = try JSONDecoder().decode(OperationContextDocument.self, from: data)
            } catch let e as StepUpError {
                throw e
            } catch {
                throw StepUpError(.malformedJSON, step: .decodeContext, reason: "the context could not be decoded")
            }
            var decoded = DecodedStepUpInput(
                phase: doc.phase, context: doc.context, document: try doc.context.decodeOperation())
            if doc.hadBothPhases {
                decoded.warnings.append(
                    StepUpWarning(
                        code: "both-contexts",
                        message: "the input holds both a pre_operation_context and a post_operation_context; "
                            + "the post_operation_context (the one carrying the proofing values) is used"))
            }
            return decoded
        }
        if o["signicatOperation"] != nil || o["operation"] != nil {
            return DecodedStepUpInput(phase: nil, context: nil, document: try SignicatOperationDocument.decode(data))
        }
        throw StepUpError(
            .missingField, step: .decodeContext, field: "context_content_b64",
            expected: "an operation context {context_content_b64, context_mime} (optionally inside "
                + "pre_operation_context/post_operation_context) or a Signicat operation object",
            reason: "the input is neither an operation context nor an operation object")
    }
}

/// Base64 as MobileID may send it: standard or URL-safe alphabet, with or without `=` padding;
/// whitespace (line breaks) is ignored.
public enum Base64Lenient {
    public static func decode(_ text: String, field: String, step: StepUpError.Step) throws -> Data {
        func fail(_ why: String) -> StepUpError {
            StepUpError(
                .invalidBase64, step: step, field: field,
                expected: "base64 (standard or URL-safe alphabet, padding optional)", reason: why)
        }
        var chars: [UInt8] = []
        chars.reserveCapacity(text.utf8.count)
        var padding = 0
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                continue
            case UInt8(ascii: "="):
                padding += 1
                continue
            default:
                if padding > 0 { throw fail("`\(field)` has data after its `=` padding") }
            }
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                chars.append(b)
            case UInt8(ascii: "-"): chars.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): chars.append(UInt8(ascii: "/"))
            default:
                throw fail("`\(field)` contains a character outside the base64 alphabets")
            }
        }
        if chars.isEmpty { throw fail("`\(field)` is empty") }
        if padding > 2 || chars.count % 4 == 1 || (padding > 0 && (chars.count + padding) % 4 != 0) {
            throw fail("`\(field)` has an impossible length or padding")
        }
        while chars.count % 4 != 0 { chars.append(UInt8(ascii: "=")) }
        guard let d = Data(base64Encoded: Data(chars)) else { throw fail("`\(field)` is not valid base64") }
        return d
    }
}
