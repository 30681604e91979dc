/// Readers for universal ASN.1 values held in `TLVNode`s (X.690 §8).
extension TLVNode {
    /// INTEGER contents as a signed Int (fails when it does not fit).
    public func integerValue() throws(TLVError) -> Int {
        try expect(0x02, "INTEGER")
        guard !value.isEmpty else { throw TLVError(.invalidValue, offset: offset, "empty INTEGER") }
        guard value.count <= 8 else { throw TLVError(.invalidValue, offset: offset, "INTEGER too large for Int") }
        var v: Int = value.first! & 0x80 != 0 ? -1 : 0
        for b in value { v = v << 8 | Int(b) }
        return v
    }

    /// INTEGER as an unsigned big-endian magnitude with leading zero octets removed (at least one octet).
    /// A negative INTEGER is an error.
    public func unsignedIntegerBytes() throws(TLVError) -> [UInt8] {
        try expect(0x02, "INTEGER")
        guard let first = value.first else { throw TLVError(.invalidValue, offset: offset, "empty INTEGER") }
        guard first & 0x80 == 0 else {
            throw TLVError(.invalidValue, offset: offset, "negative INTEGER where unsigned expected")
        }
        let stripped = Array(value.drop { $0 == 0 })
        return stripped.isEmpty ? [0] : stripped
    }

    public func objectIdentifierValue() throws(TLVError) -> ASN1ObjectIdentifier {
        try ASN1ObjectIdentifier(node: self)
    }

    public func octetStringValue() throws(TLVError) -> [UInt8] {
        if tag == 0x24 {  // BER constructed OCTET STRING
            var out: [UInt8] = []
            for c in children { out += try c.octetStringValue() }
            return out
        }
        try expect(0x04, "OCTET STRING")
        return Array(value)
    }

    /// BIT STRING contents without the unused-bits octet (requires 0 unused bits unless `allowUnused`).
    public func bitStringValue(allowUnused: Bool = false) throws(TLVError) -> [UInt8] {
        try expect(0x03, "BIT STRING")
        guard let unused = value.first else { throw TLVError(.invalidValue, offset: offset, "empty BIT STRING") }
        guard unused == 0 || allowUnused, unused < 8 else {
            throw TLVError(.invalidValue, offset: offset, "BIT STRING with \(unused) unused bits")
        }
        return Array(value.dropFirst())
    }

    public func booleanValue() throws(TLVError) -> Bool {
        try expect(0x01, "BOOLEAN")
        guard value.count == 1 else {
            throw TLVError(.invalidValue, offset: offset, "BOOLEAN of \(value.count) octets")
        }
        return value.first! != 0
    }

    /// Any of the ASN.1 character string types, decoded to a Swift string.
    /// UTF8String, PrintableString, IA5String, VisibleString, NumericString, TeletexString (as Latin-1),
    /// BMPString (UTF-16BE), UniversalString (UTF-32BE).
    public func stringValue() throws(TLVError) -> String {
        switch tag {
        case 0x0C, 0x13, 0x16, 0x1A, 0x12:
            guard let s = String(validating: value, as: UTF8.self) else {
                throw TLVError(.invalidValue, offset: offset, "invalid UTF-8 in string")
            }
            return s
        case 0x14:  // TeletexString: treat as Latin-1
            return String(String.UnicodeScalarView(value.map { Unicode.Scalar($0) }))
        case 0x1E:  // BMPString
            guard value.count % 2 == 0 else { throw TLVError(.invalidValue, offset: offset, "odd BMPString length") }
            var units: [UInt16] = []
            var i = value.startIndex
            while i < value.endIndex {
                units.append(UInt16(value[i]) << 8 | UInt16(value[i + 1]))
                i += 2
            }
            return String(decoding: units, as: UTF16.self)
        case 0x1C:  // UniversalString
            guard value.count % 4 == 0 else {
                throw TLVError(.invalidValue, offset: offset, "bad UniversalString length")
            }
            var scalars = String.UnicodeScalarView()
            var i = value.startIndex
            while i < value.endIndex {
                let v =
                    UInt32(value[i]) << 24 | UInt32(value[i + 1]) << 16 | UInt32(value[i + 2]) << 8
                    | UInt32(value[i + 3])
                guard let s = Unicode.Scalar(v) else { throw TLVError(.invalidValue, offset: offset, "bad code point") }
                scalars.append(s)
                i += 4
            }
            return String(scalars)
        default:
            throw TLVError(.unexpectedTag, offset: offset, "expected a character string, found \(TLVTag.describe(tag))")
        }
    }

    /// UTCTime (tag 17) or GeneralizedTime (tag 18).
    public func timeValue() throws(TLVError) -> ASN1Time {
        switch tag {
        case 0x17: return try ASN1Time(utcTime: value, offset: offset)
        case 0x18: return try ASN1Time(generalizedTime: value, offset: offset)
        default:
            throw TLVError(
                .unexpectedTag, offset: offset, "expected UTCTime or GeneralizedTime, found \(TLVTag.describe(tag))")
        }
    }
}

/// A point in time from UTCTime / GeneralizedTime, in UTC, to the second.
public struct ASN1Time: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second) = (hour, minute, second)
    }

    /// Seconds since 1970-01-01T00:00:00Z.
    public var secondsSince1970: Int64 {
        // days from civil (H. Hinnant's algorithm)
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return days * 86400 + Int64(hour * 3600 + minute * 60 + second)
    }

    public init(secondsSince1970 t: Int64) {
        let days = t >= 0 ? t / 86400 : (t - 86399) / 86400
        let secs = t - days * 86400
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        self.init(
            year: Int(y), month: Int(m), day: Int(d), hour: Int(secs / 3600),
            minute: Int(secs % 3600 / 60), second: Int(secs % 60))
    }

    /// Two ASCII digits at `i` of `u`.
    private static func two(_ u: ArraySlice<UInt8>, _ i: Int, _ offset: Int) throws(TLVError) -> Int {
        guard i >= u.startIndex, i + 1 < u.endIndex, (48...57).contains(u[i]), (48...57).contains(u[i + 1]) else {
            throw TLVError(.invalidValue, offset: offset, "bad digits in time")
        }
        return Int(u[i] - 48) * 10 + Int(u[i + 1] - 48)
    }

    /// RFC 5280 UTCTime "YYMMDDHHMM[SS]Z" (also accepts a +hhmm/-hhmm offset); YY < 50 → 20YY.
    public init(utcTime text: String, offset: Int = 0) throws(TLVError) {
        try self.init(utcTime: Array(text.utf8)[...], offset: offset)
    }

    /// UTCTime from its contents octets (no intermediate string).
    public init(utcTime u: ArraySlice<UInt8>, offset: Int = 0) throws(TLVError) {
        let s = u.startIndex
        var end = u.endIndex
        var shift = 0
        if u.last == UInt8(ascii: "Z") {
            end -= 1
        } else if u.count >= 5, u[end - 5] == UInt8(ascii: "+") || u[end - 5] == UInt8(ascii: "-") {
            let sign = u[end - 5] == UInt8(ascii: "+") ? 1 : -1
            let hh = try Self.two(u, end - 4, offset)
            let mm = try Self.two(u, end - 2, offset)
            shift = (hh * 3600 + mm * 60) * sign
            end -= 5
        } else {
            throw TLVError(.invalidValue, offset: offset, "UTCTime without time zone")
        }
        let d = u[s..<end]
        guard d.count == 10 || d.count == 12 else {
            throw TLVError(.invalidValue, offset: offset, "UTCTime of bad length")
        }
        let yy = try Self.two(d, s, offset)
        let t = ASN1Time(
            year: yy < 50 ? 2000 + yy : 1900 + yy, month: try Self.two(d, s + 2, offset),
            day: try Self.two(d, s + 4, offset),
            hour: try Self.two(d, s + 6, offset), minute: try Self.two(d, s + 8, offset),
            second: d.count == 12 ? try Self.two(d, s + 10, offset) : 0)
        try t.validate(offset)
        self = shift == 0 ? t : ASN1Time(secondsSince1970: t.secondsSince1970 - Int64(shift))
    }

    /// GeneralizedTime "YYYYMMDDHHMMSS[.fff]Z" (fractions dropped).
    public init(generalizedTime text: String, offset: Int = 0) throws(TLVError) {
        try self.init(generalizedTime: Array(text.utf8)[...], offset: offset)
    }

    /// GeneralizedTime from its contents octets (no intermediate string).
    public init(generalizedTime u: ArraySlice<UInt8>, offset: Int = 0) throws(TLVError) {
        guard u.last == UInt8(ascii: "Z") else {
            throw TLVError(.invalidValue, offset: offset, "GeneralizedTime without Z")
        }
        let s = u.startIndex
        var end = u.endIndex - 1
        if let dot = u[s..<end].firstIndex(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ",") }) { end = dot }
        let d = u[s..<end]
        guard d.count == 14 || d.count == 12 || d.count == 10 else {
            throw TLVError(.invalidValue, offset: offset, "GeneralizedTime of bad length")
        }
        let t = ASN1Time(
            year: try Self.two(d, s, offset) * 100 + Self.two(d, s + 2, offset), month: try Self.two(d, s + 4, offset),
            day: try Self.two(d, s + 6, offset), hour: try Self.two(d, s + 8, offset),
            minute: d.count >= 12 ? try Self.two(d, s + 10, offset) : 0,
            second: d.count == 14 ? try Self.two(d, s + 12, offset) : 0)
        try t.validate(offset)
        self = t
    }

    private func validate(_ offset: Int) throws(TLVError) {
        guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour),
            (0...59).contains(minute), (0...60).contains(second)
        else {
            throw TLVError(.invalidValue, offset: offset, "time field out of range")
        }
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    public var utcTimeString: String {
        Self.pad(year % 100, 2) + Self.pad(month, 2) + Self.pad(day, 2) + Self.pad(hour, 2) + Self.pad(minute, 2)
            + Self.pad(second, 2) + "Z"
    }

    public var generalizedTimeString: String {
        Self.pad(year, 4) + Self.pad(month, 2) + Self.pad(day, 2) + Self.pad(hour, 2) + Self.pad(minute, 2)
            + Self.pad(second, 2) + "Z"
    }

    /// ISO 8601, e.g. 2026-11-29T17:04:19Z.
    public var description: String {
        "\(Self.pad(year, 4))-\(Self.pad(month, 2))-\(Self.pad(day, 2))T\(Self.pad(hour, 2)):\(Self.pad(minute, 2)):\(Self.pad(second, 2))Z"
    }

    public static func < (a: ASN1Time, b: ASN1Time) -> Bool { a.secondsSince1970 < b.secondsSince1970 }
}
