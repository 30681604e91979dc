import MRTDAccessControl
import MRTDDocument

/// Parses the ACCESS options of DESIGN.md §4.1 into an `AccessKey`, with one-line errors that name the
/// problem but never echo the secret itself.
enum AccessOptions {
    static let valued: Set<String> = ["mrz", "document-number", "birth-date", "expiry-date", "can"]

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
        let given = ["mrz", "document-number", "birth-date", "expiry-date", "can"].filter { a.value($0) != nil }
        if let mrz = value(a, "mrz") {
            guard given == ["mrz"] else { throw UsageError("--mrz cannot be combined with --document-number/--birth-date/--expiry-date/--can") }
            let text = mrz.uppercased().filter { !$0.isWhitespace }
            guard [90, 72, 88].contains(text.count) else {
                throw UsageError("--mrz must hold the whole MRZ: 2×44 (passport), 2×36 or 3×30 characters; got \(text.count)")
            }
            do {
                return .mrz(try MRZKey(mrz: text))
            } catch {
                throw UsageError("--mrz: \(error.reason)")
            }
        }
        if let can = value(a, "can") {
            guard given == ["can"] else { throw UsageError("--can cannot be combined with MRZ options") }
            guard can.count == 6, can.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw UsageError("--can must be the 6 digits printed on the document")
            }
            return .can(can)
        }
        guard let number = a.value("document-number"), let birth = a.value("birth-date"), let expiry = a.value("expiry-date") else {
            if given.isEmpty {
                throw UsageError("access data missing: give --mrz, or --document-number with --birth-date and --expiry-date, or --can")
            }
            let missing = ["document-number", "birth-date", "expiry-date"].filter { a.value($0) == nil }.map { "--" + $0 }
            throw UsageError("missing \(missing.joined(separator: ", ")) (the MRZ key needs document number, birth date and expiry date)")
        }
        for (v, name) in [(birth, "--birth-date"), (expiry, "--expiry-date")] {
            guard v.count == 6, v.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw UsageError("\(name) must be YYMMDD (6 digits, as on the MRZ)")
            }
            let mm = Int(v.dropFirst(2).prefix(2))!, dd = Int(v.suffix(2))!
            guard (1...12).contains(mm), (1...31).contains(dd) else { throw UsageError("\(name) is not a valid date (YYMMDD)") }
        }
        let doc = number.uppercased()
        guard !doc.isEmpty, doc.count <= 22, doc.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "<" }) else {
            throw UsageError("--document-number may hold only letters A–Z, digits and '<' (at most 22 characters)")
        }
        do {
            return .mrz(try MRZKey(documentNumber: doc, dateOfBirth: birth, dateOfExpiry: expiry))
        } catch {
            throw UsageError("access data: \(error.reason)")
        }
    }
}
