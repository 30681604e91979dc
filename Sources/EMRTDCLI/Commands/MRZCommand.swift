import CanonicalJSON
import Foundation
import MRTDDocument
import MRZCapture

/// `emrtd mrz IMAGE`: reads the machine-readable zone from a photo or scan and prints its fields.
enum MRZCommand {
    static let command = CommandDecl(
        "mrz", summary: "read the MRZ from a camera or scanner image (JPEG, PNG or PGM)",
        discussion: """
            Finds the machine-readable zone (TD1, TD2 or TD3) in a photo or scan of the document and prints its
            lines and fields. An MRZ is printed only when every check digit holds; a misread character is corrected
            only when a single reading makes them hold. The image stays in memory and is overwritten when done.
            Exit status 2 for a file that is not an image, too large an image, or one without a readable zone.
            `emrtd read --mrz-image IMAGE` uses the zone as access data without printing it.
            """,
        arguments: [ArgumentDecl("IMAGE", help: "a JPEG, PNG or PGM image of the document's data page", kind: .file)],
        options: [Options.json],
        schema: "emrtd.mrz/1", exits: [.ok, .usage],
        run: { try await run($0) })

    struct Output: Encodable {
        var schema = "emrtd.mrz/1"
        let format: String
        let lines: [String]
        let documentCode, issuingState, documentNumber, surname, givenNames, nationality: String
        let dateOfBirth, sex, dateOfExpiry, optionalData: String
        let optionalData2: String?
        let confidence: Double
        let corrections: Int
    }

    static func run(_ inv: Invocation) async throws -> Int32 {
        let a = inv.arguments
        guard let path = a.positionals.first else {
            throw CLIError(.missingArgument, "give the image file (see emrtd mrz --help)", status: .usage)
        }
        let r = try MRZImage.read(path, option: nil)
        let m = r.mrz
        if a.flag("json") {
            let o = Output(
                format: m.format.rawValue, lines: m.lines, documentCode: m.documentCode, issuingState: m.issuingState,
                documentNumber: m.documentNumber, surname: m.surname, givenNames: m.givenNames,
                nationality: m.nationality, dateOfBirth: m.dateOfBirth.raw, sex: String(m.sexCharacter),
                dateOfExpiry: m.dateOfExpiry.raw, optionalData: m.optionalData, optionalData2: m.optionalData2,
                confidence: (r.confidence * 100).rounded() / 100, corrections: r.corrections)
            Console.out(CanonicalJSON.string(o))
        } else {
            var text = m.lines + [""]
            let rows: [(String, String)] = [
                ("format", m.format.rawValue), ("document code", m.documentCode), ("issuing state", m.issuingState),
                ("document number", m.documentNumber), ("surname", m.surname), ("given names", m.givenNames),
                ("nationality", m.nationality), ("date of birth", m.dateOfBirth.raw),
                ("sex", String(m.sexCharacter)), ("date of expiry", m.dateOfExpiry.raw),
                ("optional data", m.optionalData),
                ("confidence", "\(Int((r.confidence * 100).rounded())) %, \(r.corrections) character(s) corrected"),
            ]
            for (k, v) in rows { text.append(k.padding(toLength: 17, withPad: " ", startingAt: 0) + v) }
            Console.out(text.joined(separator: "\n"))
        }
        return ExitStatus.ok.rawValue
    }
}

/// Reading an image file into an MRZ, for `emrtd mrz` and `--mrz-image`: the file's size is checked before it is
/// read, and its bytes are overwritten once recognised. Errors name the file and the problem, never a character.
enum MRZImage {
    static func read(_ path: String, option: String?) throws(CLIError) -> MRZRecognition {
        let limits = MRZCaptureLimits.standard
        let what = option.map { "--\($0) " } ?? ""
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size else {
            throw CLIError(.mrzImage, "\(what)\(Shown.path(path)) cannot be read", status: .usage)
        }
        guard size <= limits.maxInputBytes else {
            throw CLIError(
                .mrzImage, "\(what)\(Shown.path(path)) is too large: \(size) bytes (at most \(limits.maxInputBytes))",
                status: .usage)
        }
        guard var bytes = FileManager.default.contents(atPath: path).map({ [UInt8]($0) }) else {
            throw CLIError(.mrzImage, "\(what)\(Shown.path(path)) cannot be read", status: .usage)
        }
        defer {
            for i in bytes.indices { bytes[i] = 0 }
        }
        do {
            let recognizer = try MRZRecognizer(limits: limits)
            return try recognizer.recognize(bytes)
        } catch {
            let reason: String
            switch error.code {
            case .notAnImage: reason = "is not a JPEG, PNG or PGM image"
            case .tooLarge: reason = "is too large (\(error.reason))"
            case .decodeFailed: reason = "could not be decoded"
            case .noMRZFound: reason = "shows no machine-readable zone"
            case .unreadable:
                reason = "shows a machine-readable zone that could not be read with every check digit holding"
            case .engineUnavailable: reason = "could not be read: \(error.reason)"
            }
            throw CLIError(.mrzImage, "\(what)\(Shown.path(path)) \(reason)", status: .usage)
        }
    }
}
