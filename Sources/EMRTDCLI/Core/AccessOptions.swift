import MRTDAccessControl
import MRTDDocument
import MRZCapture

/// Parses the ACCESS options of docs/architecture.md §4.1 into an `AccessKey`, with one-line errors that name the
/// problem but never echo the secret itself.
enum AccessOptions {
    /// `--mrz -` / `--can -` read the value from standard input (one line; the whole input for a multi-line MRZ),
    /// so that the secret does not show in the process list.
    static func value(_ a: ParsedArguments, _ name: String) -> String? {
        guard let v = a.value(name) else { return nil }
        guard v == "-" else { return v }
        var lines: [String] = []
        while let line = readLine() {
            lines.append(line)
            if name == "can" { break }
        }
        return lines.joined()
    }

    static func key(from a: ParsedArguments) throws(UsageError) -> AccessKey {
        let given = ["mrz", "document-number", "birth-date", "expiry-date", "can", "mrz-image"].filter {
            a.value($0) != nil
        }
        if let path = a.value("mrz-image") {
            guard given == ["mrz-image"] else {
                throw UsageError("--mrz-image cannot be combined with other access data", code: .conflictingOptions)
            }
            let recognition: MRZRecognition
            do { recognition = try MRZImage.read(path, option: "mrz-image") } catch {
                throw UsageError(error.message, code: error.code)
            }
            do { return .mrz(try MRZKey(mrz: recognition.mrz.raw)) } catch {
                throw UsageError("--mrz-image: \(error.reason)", code: .badAccessData)
            }
        }
        if let mrz = value(a, "mrz") {
            guard given == ["mrz"] else {
                throw UsageError(
                    "--mrz cannot be combined with --document-number/--birth-date/--expiry-date/--can",
                    code: .conflictingOptions)
            }
            let text = mrz.uppercased().filter { !$0.isWhitespace }
            guard [90, 72, 88].contains(text.count) else {
                throw UsageError(
                    "--mrz must hold the whole MRZ: 2×44 (passport), 2×36 or 3×30 characters; got \(text.count)",
                    code: .badAccessData)
            }
            let key: MRZKey
            do { key = try MRZKey(mrz: text) } catch {
                throw UsageError("--mrz: \(error.reason)", code: .badAccessData)
            }
            // The key needs only the three fields' check digits; a zone whose optional-data or composite check
            // digit is wrong was mistyped or misread somewhere, so the key may be wrong too: say so now.
            if let parsed = try? MRZ(text), let bad = parsed.checks.first(where: { !$0.isValid }) {
                let name = bad.field == .composite ? "composite (last) check digit" : "check digit of the optional data"
                throw UsageError(
                    "--mrz: the \(name) does not match — check the MRZ as typed or scanned", code: .badAccessData)
            }
            return .mrz(key)
        }
        if let can = value(a, "can") {
            guard given == ["can"] else {
                throw UsageError("--can cannot be combined with MRZ options", code: .conflictingOptions)
            }
            guard can.count == 6, can.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw UsageError("--can must be the 6 digits printed on the document", code: .badAccessData)
            }
            return .can(can)
        }
        guard let number = a.value("document-number"), let birth = a.value("birth-date"),
            let expiry = a.value("expiry-date")
        else {
            if given.isEmpty {
                throw UsageError(
                    "access data missing: give --mrz, or --document-number with --birth-date and --expiry-date, or --can",
                    code: .accessDataMissing)
            }
            let missing = ["document-number", "birth-date", "expiry-date"].filter { a.value($0) == nil }.map {
                "--" + $0
            }
            throw UsageError(
                "missing \(missing.joined(separator: ", ")) (the MRZ key needs document number, birth date and expiry date)",
                code: .accessDataMissing)
        }
        for (v, name) in [(birth, "--birth-date"), (expiry, "--expiry-date")] {
            guard v.count == 6, v.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw UsageError("\(name) must be YYMMDD (6 digits, as on the MRZ)", code: .badAccessData)
            }
            let mm = Int(v.dropFirst(2).prefix(2))!
            let dd = Int(v.suffix(2))!
            guard (1...12).contains(mm), (1...Self.daysIn(month: mm, yy: Int(v.prefix(2))!)).contains(dd) else {
                throw UsageError("\(name) is not a valid date (YYMMDD)", code: .badAccessData)
            }
        }
        let doc = number.uppercased()
        guard !doc.isEmpty, doc.count <= 22,
            doc.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "<" })
        else {
            throw UsageError(
                "--document-number may hold only letters A–Z, digits and '<' (at most 22 characters)",
                code: .badAccessData)
        }
        do {
            return .mrz(try MRZKey(documentNumber: doc, dateOfBirth: birth, dateOfExpiry: expiry))
        } catch {
            throw UsageError("access data: \(error.reason)", code: .badAccessData)
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
