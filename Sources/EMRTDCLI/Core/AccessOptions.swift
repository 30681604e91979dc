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
        var mrz = value(a, "mrz")
        if let path = a.value("mrz-image") {
            let others = ["mrz", "document-number", "birth-date", "expiry-date", "can"].filter { a.value($0) != nil }
            guard others.isEmpty else {
                throw UsageError("--mrz-image cannot be combined with other access data", code: .conflictingOptions)
            }
            do { mrz = try MRZImage.read(path, option: "mrz-image").mrz.raw } catch {
                throw UsageError(error.message, code: error.code)
            }
        }
        do {
            return try AccessData.key(
                mrz: mrz, documentNumber: a.value("document-number"), dateOfBirth: a.value("birth-date"),
                dateOfExpiry: a.value("expiry-date"), can: value(a, "can"))
        } catch {
            let code: ErrorCode
            switch error.kind {
            case .missing: code = .accessDataMissing
            case .conflicting: code = .conflictingOptions
            case .invalid: code = .badAccessData
            }
            let fromImage = a.value("mrz-image") != nil
            throw UsageError(
                error.message(naming: { fromImage && $0 == .mrz ? "--mrz-image" : option($0) }), code: code)
        }
    }
}
