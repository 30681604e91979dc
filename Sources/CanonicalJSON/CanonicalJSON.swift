public import Foundation

/// EMRTDKit's one JSON policy, used by every JSON it writes (reports, evidence bundles, CLI output, the service's
/// answers, the step-up's requests): object keys sorted, `/` not escaped, an absent optional left out (never
/// `null`), times as ISO 8601 strings made by the models themselves (no `Date` is encoded). Files and the command
/// line get the pretty layout, HTTP bodies the compact one; `emrtd serve` embeds the report in the pretty layout,
/// byte for byte what `emrtd read --json` prints.
public enum CanonicalJSON {
    /// Line breaks and indentation (files, the command line) or none (HTTP bodies, one object per line).
    public enum Layout: Sendable {
        case pretty, compact
    }

    /// The encoder with this policy.
    public static func encoder(_ layout: Layout = .pretty) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting(layout)
        return encoder
    }

    /// `value` encoded with this policy.
    public static func data<T: Encodable>(_ value: T, _ layout: Layout = .pretty) throws -> Data {
        try encoder(layout).encode(value)
    }

    /// `value` encoded with this policy as text; `{}` only if a model cannot be encoded (a programming error: every
    /// model here holds strings, numbers, booleans, arrays and objects).
    public static func string<T: Encodable>(_ value: T, _ layout: Layout = .pretty) -> String {
        String(decoding: (try? data(value, layout)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// `value` encoded with this policy as bytes.
    public static func bytes<T: Encodable>(_ value: T, _ layout: Layout = .pretty) -> [UInt8] {
        [UInt8]((try? data(value, layout)) ?? Data("{}".utf8))
    }

    /// A `JSONSerialization` object (dictionaries, arrays, strings, numbers, booleans) with this policy.
    public static func data(object: Any, _ layout: Layout = .pretty) -> Data {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        if layout == .pretty { options.insert(.prettyPrinted) }
        return (try? JSONSerialization.data(withJSONObject: object, options: options)) ?? Data("{}".utf8)
    }

    static func formatting(_ layout: Layout) -> JSONEncoder.OutputFormatting {
        layout == .pretty
            ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    }
}
