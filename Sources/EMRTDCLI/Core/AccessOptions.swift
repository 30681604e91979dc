import MRTDAccessControl
import MRTDDocument

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

    /// The option that gives each access-data field.
    static func option(_ field: AccessData.Field) -> String {
        switch field {
        case .mrz: "--mrz"
        case .documentNumber: "--document-number"
        case .dateOfBirth: "--birth-date"
        case .dateOfExpiry: "--expiry-date"
        case .can: "--can"
        }
    }

    /// The access key, by the one set of access-data rules (`AccessData.key`) the service uses too.
    static func key(from a: ParsedArguments) throws(UsageError) -> AccessKey {
        do {
            return try AccessData.key(
                mrz: value(a, "mrz"), documentNumber: a.value("document-number"), dateOfBirth: a.value("birth-date"),
                dateOfExpiry: a.value("expiry-date"), can: value(a, "can"))
        } catch {
            let code: ErrorCode
            switch error.kind {
            case .missing: code = .accessDataMissing
            case .conflicting: code = .conflictingOptions
            case .invalid: code = .badAccessData
            }
            throw UsageError(error.message(naming: option), code: code)
        }
    }
}
