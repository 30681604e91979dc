/// A calendar date (proleptic Gregorian), used as the reference for MRZ century resolution.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int, month: Int, day: Int
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }
    public static func < (a: CalendarDate, b: CalendarDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }
    /// `YYYY-MM-DD`.
    public var description: String {
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }
}

/// A date as printed in the MRZ: `YYMMDD` (ICAO 9303-3 §4.5, -4 §4.2.2). The century is not on the
/// document; `resolve` chooses it from a reference date the caller supplies. Unknown parts may be
/// printed as fillers (`<`), in which case the corresponding component is nil.
public struct MRZDate: Sendable, Hashable, CustomStringConvertible {
    /// The six characters as printed.
    public let raw: String
    /// YY, MM, DD when they are digits (MM in 1–12 and DD in 1–31 are not enforced here; see `isPlausible`).
    public let yy: Int?, month: Int?, day: Int?

    public init(raw: String) {
        self.raw = raw
        let u = Array(raw.utf8)
        func two(_ i: Int) -> Int? {
            guard u.count == 6, (48...57).contains(u[i]), (48...57).contains(u[i + 1]) else { return nil }
            return Int(u[i] - 48) * 10 + Int(u[i + 1] - 48)
        }
        yy = two(0)
        month = two(2)
        day = two(4)
    }

    /// Whether all three components are present and the month/day are in range.
    public var isPlausible: Bool {
        guard yy != nil, let m = month, let d = day else { return false }
        return (1...12).contains(m) && (1...31).contains(d)
    }

    public enum Kind: Sendable, Hashable {
        /// A date in the past (birth): the latest century that does not put it after the reference date.
        case past
        /// A date up to `yearsAhead` years after the reference date (expiry, e.g. 20).
        case upTo(yearsAhead: Int)
    }

    /// The full date, with the century chosen relative to `reference`; nil when the year is unknown.
    /// Missing month/day are returned as 0 (unknown) and compare as the start of the year/month.
    public func resolve(_ kind: Kind, reference: CalendarDate) -> CalendarDate? {
        guard let yy else { return nil }
        let m = month ?? 0
        let d = day ?? 0
        let refCentury = reference.year - ((reference.year % 100) + 100) % 100
        switch kind {
        case .past:
            var candidate = CalendarDate(year: refCentury + yy, month: m, day: d)
            if candidate > reference { candidate.year -= 100 }
            return candidate
        case .upTo(let ahead):
            let limit = CalendarDate(year: reference.year + ahead, month: reference.month, day: reference.day)
            var candidate = CalendarDate(year: refCentury + yy, month: m, day: d)
            while candidate > limit { candidate.year -= 100 }
            while CalendarDate(year: candidate.year + 100, month: m, day: d) <= limit { candidate.year += 100 }
            return candidate
        }
    }

    /// Birth dates: in the past relative to `reference`.
    public func resolvedAsBirthDate(reference: CalendarDate) -> CalendarDate? { resolve(.past, reference: reference) }
    /// Expiry dates: at most `yearsAhead` (default 20) years after `reference`.
    public func resolvedAsExpiryDate(reference: CalendarDate, yearsAhead: Int = 20) -> CalendarDate? {
        resolve(.upTo(yearsAhead: yearsAhead), reference: reference)
    }

    /// Redacted: dates of birth are personal data.
    public var description: String { "MRZDate(redacted)" }
}
