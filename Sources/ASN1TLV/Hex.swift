/// Hexadecimal helpers used throughout the package (test vectors, traces, command-line options).
public enum Hex {
    /// Uppercase hex without separators.
    public static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        append(bytes, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the hex digits of `bytes` (as UTF-8) to `out`: uppercase, or lowercase where a format asks
    /// for it (RFC 4514's "#" values).
    public static func append<S: Sequence>(_ bytes: S, to out: inout [UInt8], lowercase: Bool = false)
    where S.Element == UInt8 {
        let digits = lowercase ? lowerDigits : upperDigits
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
    }

    private static let upperDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
    private static let lowerDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Decodes hex, ignoring white space, ':' and '-'; nil on odd length or a bad digit.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8? = nil
        for c in text.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"),
                UInt8(ascii: ":"), UInt8(ascii: "-"):
                continue
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return high == nil ? out : nil
    }
}

extension Array where Element == UInt8 {
    /// Bytes from hex text (see `Hex.decode`); nil when the text is not hex.
    public init?(hex: String) {
        guard let b = Hex.decode(hex) else { return nil }
        self = b
    }

    /// Uppercase hex without separators.
    public var hexString: String { Hex.encode(self) }
}

extension ArraySlice where Element == UInt8 {
    /// Uppercase hex without separators.
    public var hexString: String { Hex.encode(self) }
}
