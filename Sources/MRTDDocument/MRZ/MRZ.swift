/// A machine-readable zone, parsed field by field (ICAO 9303-3 §4, -4 §4.2 TD3, -5 §4.2 TD1, -6 §4.2 TD2,
/// -7 §4.2 MRV-A/MRV-B).
///
/// Parsing never refuses a zone because of a wrong check digit: every check is reported in `checks`
/// (`isValid`, `validate()`); only a zone without the shape of any format (length, characters) is an error.
/// Fields are returned with fillers removed; names are split on `<<` with the remaining fillers turned into
/// spaces; dates stay `YYMMDD` (`MRZDate.resolve` picks the century).
///
/// The MRZ is personal data and an access key: `description` is redacted.
public struct MRZ: Sendable, Hashable, CustomStringConvertible {
    /// The lines concatenated, without line breaks.
    public let raw: String
    public let lines: [String]
    public let format: MRZFormat

    /// Document code, fillers removed ("P", "I", "ID", "V").
    public let documentCode: String
    /// Issuing state or organisation (3 letters, fillers removed: "D" for Germany).
    public let issuingState: String
    /// The whole name field as printed.
    public let nameField: String
    /// Primary identifier (surname), fillers → spaces.
    public let primaryIdentifier: String
    /// Secondary identifier (given names), fillers → spaces; empty when absent.
    public let secondaryIdentifier: String
    /// The full document number, fillers removed; for TD1/TD2 long document numbers (9303-5 §4.2.4,
    /// -6 §4.2.4) the 9 principal characters followed by the continuation taken from the optional data.
    public let documentNumber: String
    /// The 9-character document number field as printed.
    public let documentNumberField: String
    /// Whether the long-document-number rule applied ('<' in the document number check digit position).
    public let hasLongDocumentNumber: Bool
    /// Nationality (3 letters, fillers removed).
    public let nationality: String
    public let dateOfBirth: MRZDate
    public let sex: MRZSex
    /// The sex character as printed ("M", "F", "<" or "X").
    public let sexCharacter: Character
    /// Date of expiry (visas: "valid until").
    public let dateOfExpiry: MRZDate
    /// Optional data, fillers trimmed at the end: TD3 personal number; TD1 optional data of line 1 (after a
    /// long-number continuation, if any); TD2/MRV optional data.
    public let optionalData: String
    /// TD1 only: the optional data of line 2, fillers trimmed.
    public let optionalData2: String?
    /// Every check digit of the format, in the order they appear.
    public let checks: [MRZCheck]

    /// Primary identifier under its everyday name (the report's `surname`).
    public var surname: String { primaryIdentifier }
    /// Secondary identifier under its everyday name (the report's `givenNames`).
    public var givenNames: String { secondaryIdentifier }
    /// TD3 only: the personal number (the optional data of line 2, 9303-4 §4.2.2); nil for other formats or
    /// when empty.
    public var personalNumber: String? { format == .td3 && !optionalData.isEmpty ? optionalData : nil }

    /// Whether every check digit is correct.
    public var isValid: Bool { checks.allSatisfy(\.isValid) }

    /// Throws `checkDigitMismatch` naming the first failing check (its field only; no MRZ content).
    public func validate() throws(LDSParseError) {
        if let bad = checks.first(where: { !$0.isValid }) {
            throw LDSParseError(
                .checkDigitMismatch, file: nil, offset: 0, "\(bad.field.rawValue) check digit does not match")
        }
    }

    /// The check result of one field, if the format has it.
    public func check(_ field: MRZCheck.Field) -> MRZCheck? { checks.first { $0.field == field } }

    /// The document number, date of birth and date of expiry that BAC and PACE derive their key from.
    public var keyInfo: MRZKeyInfo {
        MRZKeyInfo(documentNumber: documentNumber, dateOfBirth: dateOfBirth.raw, dateOfExpiry: dateOfExpiry.raw)
    }

    public var description: String {
        "MRZ(\(format.rawValue), \(isValid ? "check digits valid" : "check digit mismatch"))"
    }

    /// Parses an MRZ given as its lines joined with or without line breaks (`\n`, `\r\n`); surrounding
    /// whitespace is ignored. Lowercase letters are not accepted (the MRZ character set is 0–9, A–Z, <).
    public init(_ text: String) throws(LDSParseError) {
        try self.init(text, file: nil, base: 0)
    }

    init(_ text: String, file: LDSFile?, base: Int) throws(LDSParseError) {
        // Work on the UTF-8 bytes: a valid MRZ is ASCII, and grapheme-by-grapheme Character handling
        // dominated reading DG1.
        let utf8 = Array(text.utf8)
        var pieces: [ArraySlice<UInt8>] = []
        var lineStart = 0
        for i in 0...utf8.count where i == utf8.count || (0x0A...0x0D).contains(utf8[i]) {
            var piece = utf8[lineStart..<i]
            while let f = piece.first, f == 0x20 || f == 0x09 { piece = piece.dropFirst() }
            while let l = piece.last, l == 0x20 || l == 0x09 { piece = piece.dropLast() }
            if !piece.isEmpty { pieces.append(piece) }
            lineStart = i + 1
        }
        let chars: [UInt8] = pieces.flatMap { $0 }
        // Character set first: everything below indexes by character.
        for (i, c) in chars.enumerated() {
            guard
                c == UInt8(ascii: "<") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c)
            else {
                throw LDSParseError(
                    .invalidMRZ, file: file, offset: base + i,
                    "character at position \(i) is outside the MRZ character set")
            }
        }
        let format: MRZFormat
        switch chars.count {
        case 90: format = .td1
        case 72: format = chars.first == UInt8(ascii: "V") ? .mrvB : .td2
        case 88: format = chars.first == UInt8(ascii: "V") ? .mrvA : .td3
        default:
            throw LDSParseError(
                .invalidMRZ, file: file, offset: base,
                "\(chars.count) MRZ characters: expected 90 (TD1), 72 (TD2, MRV-B) or 88 (TD3, MRV-A)")
        }
        if pieces.count > 1 {
            guard pieces.count == format.lineCount, pieces.allSatisfy({ $0.count == format.lineLength }) else {
                throw LDSParseError(
                    .invalidMRZ, file: file, offset: base,
                    "\(format.rawValue) needs \(format.lineCount) lines of \(format.lineLength) characters")
            }
        }
        self.format = format
        raw = String(decoding: chars, as: UTF8.self)
        let n = format.lineLength
        let l: [ArraySlice<UInt8>] = (0..<format.lineCount).map { chars[($0 * n)..<(($0 + 1) * n)] }
        lines = l.map { String(decoding: $0, as: UTF8.self) }
        func s(_ line: Int, _ r: Range<Int>) -> String {
            let base = l[line].startIndex
            return String(decoding: l[line][(base + r.lowerBound)..<(base + r.upperBound)], as: UTF8.self)
        }
        func c(_ line: Int, _ i: Int) -> Character { Character(Unicode.Scalar(l[line][l[line].startIndex + i])) }

        documentCode = MRZ.stripFillers(s(0, 0..<2))
        issuingState = MRZ.stripFillers(s(0, 2..<5))

        var checks: [MRZCheck] = []
        let nameText: String
        switch format {
        case .td1:
            nameText = s(2, 0..<30)
            let field = s(0, 5..<14)
            let cd = c(0, 14)
            let opt1 = s(0, 15..<30)
            let (number, long, cdUsed, numberForCheck, rest) = MRZ.documentNumber(
                field: field, checkDigit: cd, optional: opt1)
            documentNumberField = field
            documentNumber = number
            hasLongDocumentNumber = long
            checks.append(MRZCheck(.documentNumber, input: numberForCheck, printed: cdUsed))
            optionalData = MRZ.trimTrailingFillers(rest)
            dateOfBirth = MRZDate(raw: s(1, 0..<6))
            checks.append(MRZCheck(.dateOfBirth, input: s(1, 0..<6), printed: c(1, 6)))
            sexCharacter = c(1, 7)
            dateOfExpiry = MRZDate(raw: s(1, 8..<14))
            checks.append(MRZCheck(.dateOfExpiry, input: s(1, 8..<14), printed: c(1, 14)))
            nationality = MRZ.stripFillers(s(1, 15..<18))
            optionalData2 = MRZ.trimTrailingFillers(s(1, 18..<29))
            let composite = s(0, 5..<30) + s(1, 0..<7) + s(1, 8..<15) + s(1, 18..<29)
            checks.append(MRZCheck(.composite, input: composite, printed: c(1, 29)))
        case .td2, .td3, .mrvA, .mrvB:
            nameText = s(0, 5..<n)
            let field = s(1, 0..<9)
            let cd = c(1, 9)
            let optRange = format == .td3 ? 28..<42 : (format == .td2 ? 28..<35 : 28..<n)
            let opt = s(1, optRange)
            documentNumberField = field
            if format == .td2 {
                let (number, long, cdUsed, numberForCheck, rest) = MRZ.documentNumber(
                    field: field, checkDigit: cd, optional: opt)
                documentNumber = number
                hasLongDocumentNumber = long
                checks.append(MRZCheck(.documentNumber, input: numberForCheck, printed: cdUsed))
                optionalData = MRZ.trimTrailingFillers(rest)
            } else {
                documentNumber = MRZ.stripFillers(field)
                hasLongDocumentNumber = false
                checks.append(MRZCheck(.documentNumber, input: field, printed: cd))
                optionalData = MRZ.trimTrailingFillers(opt)
            }
            nationality = MRZ.stripFillers(s(1, 10..<13))
            dateOfBirth = MRZDate(raw: s(1, 13..<19))
            checks.append(MRZCheck(.dateOfBirth, input: s(1, 13..<19), printed: c(1, 19)))
            sexCharacter = c(1, 20)
            dateOfExpiry = MRZDate(raw: s(1, 21..<27))
            checks.append(MRZCheck(.dateOfExpiry, input: s(1, 21..<27), printed: c(1, 27)))
            optionalData2 = nil
            if format == .td3 {
                checks.append(MRZCheck(.optionalData, input: opt, printed: c(1, 42), fillerMeansZero: true))
                let composite = s(1, 0..<10) + s(1, 13..<20) + s(1, 21..<43)
                checks.append(MRZCheck(.composite, input: composite, printed: c(1, 43)))
            } else if format == .td2 {
                let composite = s(1, 0..<10) + s(1, 13..<20) + s(1, 21..<35)
                checks.append(MRZCheck(.composite, input: composite, printed: c(1, 35)))
            }
        }
        sex = MRZSex(character: sexCharacter)
        nameField = nameText
        (primaryIdentifier, secondaryIdentifier) = MRZ.splitName(nameText)
        self.checks = checks
    }

    // MARK: - Field rules

    /// The long document number rule (9303-5 §4.2.4 note j, -6 §4.2.4): when the check digit position holds
    /// a filler, the number continues at the start of the optional data, whose last character before the
    /// first filler is the check digit over the whole number.
    /// Returns (full number, long?, the check digit that applies, the check-digit input, remaining optional data).
    static func documentNumber(field: String, checkDigit: Character, optional: String)
        -> (String, Bool, Character, String, String)
    {
        guard checkDigit == "<" else {
            return (stripFillers(field), false, checkDigit, field, optional)
        }
        let o = Array(optional)
        let run = o.prefix { $0 != "<" }
        guard run.count >= 1 else {
            // A filler check digit without a continuation: report it as a failing check over the field.
            return (stripFillers(field), false, checkDigit, field, optional)
        }
        let continuation = String(run.dropLast())
        let cd = run.last!
        let full = field + continuation
        let rest = String(o.dropFirst(min(o.count, run.count + 1)))
        return (stripFillers(full), true, cd, full, rest)
    }

    /// Primary and secondary identifiers (9303-3 §4.6): split at the first `<<`, fillers → spaces.
    static func splitName(_ field: String) -> (String, String) {
        let c = Array(field.utf8)  // MRZ characters are ASCII (checked before fields are cut)
        var split: Int?
        var i = 0
        while i + 1 < c.count {
            if c[i] == UInt8(ascii: "<") && c[i + 1] == UInt8(ascii: "<") {
                split = i
                break
            }
            i += 1
        }
        func clean(_ s: ArraySlice<UInt8>) -> String {
            s.split(separator: UInt8(ascii: "<"), omittingEmptySubsequences: true).map {
                String(decoding: $0, as: UTF8.self)
            }
            .joined(separator: " ")
        }
        guard let at = split else { return (clean(c[...]), "") }
        return (clean(c[..<at]), clean(c[(at + 2)...]))
    }

    /// All fillers removed (codes, states, document numbers).
    static func stripFillers(_ s: String) -> String {
        String(decoding: s.utf8.filter { $0 != UInt8(ascii: "<") }, as: UTF8.self)
    }

    /// Trailing fillers removed, inner fillers kept (optional data).
    static func trimTrailingFillers(_ s: String) -> String {
        var c = Array(s.utf8)[...]
        while c.last == UInt8(ascii: "<") { c = c.dropLast() }
        return String(decoding: c, as: UTF8.self)
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}

/// The part of the MRZ that BAC and PACE use as the password (ICAO 9303-11 §9.7.1 / §4.4.1):
/// `MRZ_information` = document number ‖ its check digit ‖ date of birth ‖ check digit ‖ date of expiry ‖
/// check digit. A document number shorter than 9 characters is padded with fillers; a longer one (TD1/TD2
/// long numbers) is used whole with its own check digit. Redacted in `description`.
public struct MRZKeyInfo: Sendable, Hashable, CustomStringConvertible {
    public let documentNumber: String
    public let dateOfBirth: String
    public let dateOfExpiry: String

    public init(documentNumber: String, dateOfBirth: String, dateOfExpiry: String) {
        self.documentNumber = documentNumber
        self.dateOfBirth = dateOfBirth
        self.dateOfExpiry = dateOfExpiry
    }

    /// The document number as it enters the key: padded with '<' to at least 9 characters.
    public var paddedDocumentNumber: String {
        documentNumber + String(repeating: "<", count: max(0, 9 - documentNumber.count))
    }

    /// `MRZ_information`; nil when a field holds characters outside the MRZ set.
    public var mrzInformation: String? {
        let d = paddedDocumentNumber
        guard let c1 = MRZCheckDigit.character(d), let c2 = MRZCheckDigit.character(dateOfBirth),
            let c3 = MRZCheckDigit.character(dateOfExpiry), dateOfBirth.count == 6, dateOfExpiry.count == 6
        else { return nil }
        return d + String(c1) + dateOfBirth + String(c2) + dateOfExpiry + String(c3)
    }

    public var description: String { "MRZKeyInfo(redacted)" }
}
