import CanonicalJSON
import Foundation
public import MRTDReader
public import StepUp

/// The one exit-status table of every `emrtd` command (docs/cli.md, `emrtd --help`).
public enum ExitStatus: Int32, CaseIterable, Sendable {
    case ok = 0
    case usage = 2
    case transport = 3
    case accessControl = 4
    case trust = 5
    case remote = 6
    case inconclusive = 10
    case rejected = 11

    public var meaning: String {
        switch self {
        case .ok: return "accepted / ok"
        case .usage: return "usage error or bad input"
        case .transport: return "reader or transport failure"
        case .accessControl: return "access control failed (wrong MRZ or CAN)"
        case .trust: return "trust material unusable"
        case .remote: return "step-up HTTP or remote failure"
        case .inconclusive: return "inconclusive"
        case .rejected: return "rejected"
        }
    }

    /// "0 accepted / ok, 10 inconclusive, …" in numeric order.
    public static var table: [String] {
        allCases.map { "\(String($0.rawValue).padding(toLength: 3, withPad: " ", startingAt: 0)) \($0.meaning)" }
    }
}

/// Every error code an `emrtd` command can print (in `{"error": {"code": …}}` under `--json`, and listed in
/// docs/cli.md, which a test keeps complete).
public enum ErrorCode: String, CaseIterable, Sendable {
    case unknownCommand = "unknown-command"
    case unknownOption = "unknown-option"
    case missingValue = "missing-value"
    case unexpectedValue = "unexpected-value"
    case extraArgument = "extra-argument"
    case missingArgument = "missing-argument"
    case repeatedOption = "repeated-option"
    case conflictingOptions = "conflicting-options"
    case badValue = "bad-value"
    case accessDataMissing = "access-data-missing"
    case badAccessData = "bad-access-data"
    case mrzImage = "mrz-image"
    case unknownProfile = "unknown-profile"
    case outputNotUsable = "output-not-usable"
    case cannotWrite = "cannot-write"
    case badBundle = "bad-bundle"
    case badReaderProfiles = "bad-reader-profiles"
    case trustMaterial = "trust-material"
    case transport = "transport"
    case noReader = "no-reader"
    case accessControl = "access-control"
    case chip = "chip"
    case stepUpInput = "stepup-input"
    case stepUpRemote = "stepup-remote"
    case stepUpChipRead = "stepup-chip-read"
    case internalError = "internal"

    public var meaning: String {
        switch self {
        case .unknownCommand: return "the command word is not an emrtd command (a close one is suggested)"
        case .unknownOption: return "an option the command does not have (a close one is suggested)"
        case .missingValue: return "an option that takes a value was given none"
        case .unexpectedValue: return "a flag was given a value (`--json=yes`)"
        case .extraArgument: return "a word the command does not take (never quoted: it may be access data)"
        case .missingArgument: return "a required argument or option is missing"
        case .repeatedOption: return "an option that takes one value was given twice"
        case .conflictingOptions: return "two options that exclude each other"
        case .badValue: return "an option value of the wrong form (number, date, hex, file list, …)"
        case .accessDataMissing: return "no MRZ, document number/dates or CAN given"
        case .badAccessData: return "the MRZ, dates, document number or CAN are malformed (the value is never shown)"
        case .mrzImage:
            return
                "the image given to `mrz` or `--mrz-image` is not a JPEG/PNG/PGM image, is too large, or shows no MRZ readable with every check digit holding"
        case .unknownProfile: return "no built-in virtual document or saved profile of that name"
        case .outputNotUsable:
            return
                "`--out`, `--save` or `--evidence-dir` names a folder that cannot be created or written (`--out` and `--save`: or is not empty, or is `/`); `--html` or `--trace` a file that cannot be written (checked before the read)"
        case .cannotWrite:
            return "a file (bundle, page, trace) could not be written after the read (its report is kept)"
        case .badBundle: return "the folder given to `verify` is not a readable evidence bundle"
        case .badReaderProfiles: return "the `--profiles` file is not a valid emrtd.readers/1 file"
        case .trustMaterial: return "`--trust`/`--ml-signer-root` material cannot be loaded or holds no CSCA"
        case .transport: return "the reader, pcscd or the card connection failed"
        case .noReader: return "no PC/SC reader is connected"
        case .accessControl: return "the chip refused the access data (BAC/PACE failed)"
        case .chip: return "the chip answered in a way the read cannot continue from"
        case .stepUpInput: return "the step-up context or a step-up option is invalid"
        case .stepUpRemote: return "a step-up HTTP exchange failed or the remote answered wrongly"
        case .stepUpChipRead:
            return
                "the chip read of `stepup run` was cancelled or failed unexpectedly (its ordinary failures carry the codes of `read`)"
        case .internalError: return "an unexpected failure inside emrtd (please report it)"
        }
    }
}

/// A failure of a command: printed as one line on stderr ("emrtd CMD: message"), and under `--json` as the
/// one JSON object on stdout.
public struct CLIError: Error, Sendable {
    public var code: ErrorCode
    public var message: String
    public var status: ExitStatus
    /// Extra members of the JSON error object (the step-up commands' `step`, `field`, `code`, …); a `code` among them
    /// is the one printed.
    public var details: [String: JSONValue]
    /// A finished read's report that must not be lost with the failure (an evidence bundle that could not be written
    /// after the document was read): printed before the error line, and under `--json` the error object's `report`.
    public var report: ReadReport?

    public init(_ code: ErrorCode, _ message: String, status: ExitStatus, details: [String: JSONValue] = [:]) {
        self.code = code
        self.message = message
        self.status = status
        self.details = details
    }

    public init(_ usage: UsageError) {
        self.init(usage.code, usage.message, status: .usage)
    }
}

/// Writes the JSON error object.
enum ErrorOutput {
    static let schema = "emrtd.error/1"

    static func json(_ e: CLIError, command: String, pretty: Bool = true) -> String {
        var error: [String: Any] = [:]
        for (k, v) in e.details {
            error[k] = (try? CanonicalJSON.data(v)).flatMap {
                try? JSONSerialization.jsonObject(with: $0, options: .fragmentsAllowed)
            }
        }
        if error["code"] == nil { error["code"] = e.code.rawValue }
        error["message"] = e.message
        error["exitStatus"] = Int(e.status.rawValue)
        var object: [String: Any] = ["schema": schema, "command": command, "error": error]
        if let report = e.report,
            let kept = try? JSONSerialization.jsonObject(with: Data(Presentation.json(report).utf8))
        {
            object["report"] = kept
        }
        return String(decoding: CanonicalJSON.data(object: object, pretty ? .pretty : .compact), as: UTF8.self)
    }
}

/// "did you mean …": the closest word by edit distance, if close enough to be a typo.
enum Suggest {
    static func closest(_ word: String, among candidates: [String]) -> String? {
        let w = word.lowercased()
        var best: (String, Int)? = nil
        for c in candidates {
            let d = distance(w, c.lowercased())
            if best == nil || d < best!.1 { best = (c, d) }
        }
        guard let (c, d) = best else { return nil }
        let limit = max(1, min(3, w.count / 3))
        return d <= limit ? c : nil
    }

    /// Damerau–Levenshtein distance (optimal string alignment): insert, delete, substitute, swap neighbours.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}

/// What a message may quote of a word the user typed: a word that could be access data in the wrong place
/// (an MRZ, a document number, a date, a CAN) is never quoted.
enum Shown {
    /// A lowercase identifier (`pace-cam`, `--jsn`'s name): starts with a letter, only a–z, 0–9, `-`, `+`, and no
    /// run of 6 digits (a date or a CAN).
    static func isSafeName(_ word: String) -> Bool {
        guard let first = word.first, first.isASCII, first.isLowercase, word.count <= 40 else { return false }
        guard word.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "+") }) else {
            return false
        }
        var run = 0
        for c in word {
            run = c.isNumber ? run + 1 : 0
            if run >= 6 { return false }
        }
        return true
    }

    /// `'word'` when safe to quote, else `fallback`.
    static func name(_ word: String, or fallback: String = "that name") -> String {
        isSafeName(word) ? "'\(word)'" : fallback
    }

    /// Whether a word could be access data (an MRZ or a line of it, a document number, a date, a CAN): it holds
    /// the MRZ filler `<`, a run of 6 digits, or is 6–12 capital letters and digits with at least 3 digits.
    static func couldBeAccessData(_ word: Substring) -> Bool {
        if word.contains("<") { return true }
        var run = 0
        for c in word {
            run = c.isASCII && c.isNumber ? run + 1 : 0
            if run >= 6 { return true }
        }
        let capitalsAndDigits = word.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
        return capitalsAndDigits && (6...12).contains(word.count) && word.filter(\.isNumber).count >= 3
    }

    /// A path as the user gave it. One that exists is a real file the user pointed at and is quoted whole; in one
    /// that does not exist (it may be a value typed in the wrong place) each word that could be access data is
    /// shown as `…`, so that the message still says which path it is.
    static func path(_ path: String) -> String {
        if FileManager.default.fileExists(atPath: path) { return path }
        var out = ""
        var word = ""
        func flush() {
            out += couldBeAccessData(Substring(word)) ? "…" : word
            word = ""
        }
        for c in path {
            if c.isLetter || c.isNumber || c == "<" {
                word.append(c)
            } else {
                flush()
                out.append(c)
            }
        }
        flush()
        return out.isEmpty ? "(an empty path)" : out
    }

    /// "the 2nd of 3 --trust paths" when an option was given more than once, else "".
    static func position(_ index: Int, of count: Int, option: String) -> String {
        guard count > 1 else { return "" }
        let n = index + 1
        let suffix =
            (11...13).contains(n % 100) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th"
        return " (the \(n)\(suffix) of \(count) \(option) paths)"
    }
}
