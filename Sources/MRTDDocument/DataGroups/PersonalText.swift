/// How the text of DG11, DG12 and DG16 reads to a person (ICAO 9303-10 §4.7.11, §4.7.12, §4.7.16; names as
/// in ICAO 9303-3 §4.6): '<' is the filler and the separator of a field's parts, '<<' separates a name's
/// primary and secondary identifiers, dates are YYYYMMDD (and YYYYMMDDhhmmss for the personalisation time).
extension LDSFields {
    /// A name: primary identifier (surname) and secondary identifier (given names), fillers → spaces.
    /// A name without '<<' (e.g. in national characters) is all primary identifier.
    public struct Name: Sendable, Hashable {
        public let primary: String
        public let secondary: String
        public init(primary: String, secondary: String) {
            self.primary = primary
            self.secondary = secondary
        }
    }

    public static func name(_ raw: String) -> Name {
        let (p, s) = MRZ.splitName(raw)
        return Name(primary: p, secondary: s)
    }

    /// Free text with fillers: every run of '<' and blanks becomes one space, leading and trailing ones go.
    public static func readable(_ raw: String) -> String {
        raw.split(whereSeparator: { $0 == "<" || $0 == " " }).joined(separator: " ")
    }

    /// A multi-part field (place of birth, address, other travel document numbers): its '<'-separated parts,
    /// each trimmed, empty parts dropped.
    public static func parts(_ raw: String) -> [String] {
        split(raw).map { readable($0) }.filter { !$0.isEmpty }
    }

    /// A date element as ISO 8601 when it is a valid calendar date: YYYYMMDD → "YYYY-MM-DD",
    /// YYYYMMDDhhmmss → "YYYY-MM-DDThh:mm:ss". nil for anything else (partial dates, fillers, out-of-range
    /// values), which a caller shows as stored.
    public static func iso8601(_ digits: String) -> String? {
        let u = Array(digits.utf8)
        guard u.count == 8 || u.count == 14, u.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        func num(_ i: Int, _ n: Int) -> Int { u[i..<(i + n)].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        let year = num(0, 4)
        let month = num(4, 2)
        let day = num(6, 2)
        guard year >= 1, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else {
            return nil
        }
        let date =
            String(decoding: u[0..<4], as: UTF8.self) + "-" + String(decoding: u[4..<6], as: UTF8.self) + "-"
            + String(decoding: u[6..<8], as: UTF8.self)
        guard u.count == 14 else { return date }
        guard num(8, 2) <= 23, num(10, 2) <= 59, num(12, 2) <= 59 else { return nil }
        return date + "T" + String(decoding: u[8..<10], as: UTF8.self) + ":"
            + String(decoding: u[10..<12], as: UTF8.self)
            + ":" + String(decoding: u[12..<14], as: UTF8.self)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
