import MRTDDocument

/// The access data a person gives for a read — the whole MRZ, or the three fields of the MRZ key, or the CAN — checked
/// by one set of rules for every front end (`emrtd read`, `stepup run`, `emrtd serve` and its kiosk page, which asks
/// the service rather than keeping rules of its own). A problem names the field, never its value.
public enum AccessData {
    /// The fields, as each front end names them in its messages.
    public enum Field: String, Sendable, CaseIterable {
        case mrz, documentNumber, dateOfBirth, dateOfExpiry, can
    }

    /// Why the access data cannot be used.
    public struct Problem: Error, Sendable, Hashable {
        public enum Kind: Sendable, Hashable {
            /// Nothing, or only part of the MRZ key, was given (`missing` lists what is missing).
            case missing
            /// Two kinds of access data given together.
            case conflicting
            /// A field's value does not have the form it must have.
            case invalid
        }
        public var kind: Kind
        /// The field the problem is about (the first missing one for `missing`).
        public var field: Field?
        /// For `missing`: the fields still needed.
        public var missing: [Field]
        /// What is wrong, with `{field}` standing for a field's name (`message(naming:)` fills it in).
        let template: String

        /// The problem in words, each field named as `name` names it (`--birth-date`, `access.dateOfBirth`, …).
        public func message(naming name: (Field) -> String) -> String {
            var text = template
            for f in Field.allCases { text = text.replacing("{\(f.rawValue)}", with: name(f)) }
            return text
        }
    }

    /// The access key from what was given (nil for a field not given). Whitespace inside an MRZ is ignored and
    /// letters may be lower case; an MRZ must be whole (2×44, 2×36 or 3×30 characters) and every check digit of it
    /// must hold (a zone with a wrong optional-data or composite check digit was mistyped or misread, so its key
    /// may be wrong too); dates are YYMMDD and real dates; a CAN is 6 digits.
    public static func key(
        mrz: String? = nil, documentNumber: String? = nil, dateOfBirth: String? = nil, dateOfExpiry: String? = nil,
        can: String? = nil
    ) throws(Problem) -> AccessKey {
        let given: [Field] = [
            (mrz, Field.mrz), (documentNumber, .documentNumber), (dateOfBirth, .dateOfBirth),
            (dateOfExpiry, .dateOfExpiry), (can, .can),
        ].compactMap { $0.0 == nil ? nil : $0.1 }
        func invalid(_ field: Field, _ text: String) -> Problem {
            Problem(kind: .invalid, field: field, missing: [], template: text)
        }
        if let mrz {
            guard given == [.mrz] else {
                throw Problem(
                    kind: .conflicting, field: .mrz, missing: [],
                    template: "{mrz} cannot be combined with {documentNumber}, {dateOfBirth}, {dateOfExpiry} or {can}")
            }
            let text = mrz.uppercased().filter { !$0.isWhitespace }
            guard [90, 72, 88].contains(text.count) else {
                throw invalid(
                    .mrz, "{mrz} must hold the whole MRZ: 2×44 (passport), 2×36 or 3×30 characters; got \(text.count)")
            }
            let key: MRZKey
            do { key = try MRZKey(mrz: text) } catch { throw invalid(.mrz, "{mrz}: \(error.reason)") }
            if let parsed = try? MRZ(text), let bad = parsed.checks.first(where: { !$0.isValid }) {
                let name = bad.field == .composite ? "composite (last) check digit" : "check digit of the optional data"
                throw invalid(.mrz, "{mrz}: the \(name) does not match — check the MRZ as typed or scanned")
            }
            return .mrz(key)
        }
        if let can {
            guard given == [.can] else {
                throw Problem(
                    kind: .conflicting, field: .can, missing: [], template: "{can} cannot be combined with MRZ fields")
            }
            guard can.count == 6, can.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw invalid(.can, "{can} must be the 6 digits printed on the document")
            }
            return .can(can)
        }
        guard let documentNumber, let dateOfBirth, let dateOfExpiry else {
            let missing = [Field.documentNumber, .dateOfBirth, .dateOfExpiry].filter { !given.contains($0) }
            if given.isEmpty {
                throw Problem(
                    kind: .missing, field: nil, missing: missing,
                    template: "access data missing: give {mrz}, or {documentNumber} with {dateOfBirth} and"
                        + " {dateOfExpiry}, or {can}")
            }
            throw Problem(
                kind: .missing, field: missing.first, missing: missing,
                template: "missing \(missing.map { "{\($0.rawValue)}" }.joined(separator: ", ")) (the MRZ key needs"
                    + " document number, birth date and expiry date)")
        }
        for (value, field) in [(dateOfBirth, Field.dateOfBirth), (dateOfExpiry, .dateOfExpiry)] {
            guard value.count == 6, value.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw invalid(field, "{\(field.rawValue)} must be YYMMDD (6 digits, as on the MRZ)")
            }
            let yy = Int(value.prefix(2))!
            let mm = Int(value.dropFirst(2).prefix(2))!
            let dd = Int(value.suffix(2))!
            guard (1...12).contains(mm), (1...daysIn(month: mm, yy: yy)).contains(dd) else {
                throw invalid(field, "{\(field.rawValue)} is not a valid date (YYMMDD)")
            }
        }
        let number = documentNumber.uppercased()
        guard !number.isEmpty, number.count <= 22,
            number.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "<" })
        else {
            throw invalid(
                .documentNumber, "{documentNumber} may hold only letters A–Z, digits and '<' (at most 22 characters)")
        }
        do {
            return .mrz(try MRZKey(documentNumber: number, dateOfBirth: dateOfBirth, dateOfExpiry: dateOfExpiry))
        } catch {
            throw invalid(.documentNumber, "access data: \(error.reason)")
        }
    }

    /// Days in a month; February of a two-digit year has 29 days when YY is divisible by 4 (2000 was a leap year).
    static func daysIn(month: Int, yy: Int) -> Int {
        switch month {
        case 2: return yy % 4 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
