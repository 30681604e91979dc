import ASN1TLV
import CanonicalJSON
import Foundation
import ISO7816
import MRTDDocument
import MRTDReader
import MRTDTrust

/// The part of `demo`, `read` and `stepup run` that is the same: read, verify, write the bundle, report.
struct ReadFlow {
    var json: Bool
    /// The checked `--out` folder (see `OutputFolder.prepare`).
    var out: URL?
    var tracePath: String?
    /// The checked `--html` file (see `HTMLOutput.prepare`).
    var htmlPath: String? = nil
    var quiet = false
    /// `--allow-expired`: a document past its date of expiry may still be accepted (the report records it).
    var allowExpired = false
    /// Files written into the bundle beside the read's own (demo: the generated test CSCA).
    var extraBundleFiles: [String: [UInt8]] = [:]

    struct Outcome {
        var report: ReadReport
        var result: ReadResult
        var verification: VerificationOutcome
        var bundle: URL?
    }

    /// Runs the read and verification; a failure is a `CLIError` with its exit status. The face is decoded once for
    /// the report, the bundle and the page (`HTMLOutput.decodingOnce`).
    func run(
        transport: any CardTransport, options: ReadOptions, trustStore: TrustStore,
        validationTime: ASN1Time = .now
    ) async throws(CLIError) -> Outcome {
        try await HTMLOutput.decodingOnce { () async throws(CLIError) -> Outcome in
            try await readVerifyWrite(
                transport: transport, options: options, trustStore: trustStore, validationTime: validationTime)
        }
    }

    private func readVerifyWrite(
        transport: any CardTransport, options: ReadOptions, trustStore: TrustStore, validationTime: ASN1Time
    ) async throws(CLIError) -> Outcome {
        let trace = tracePath == nil ? nil : APDUTrace()
        let reader = DocumentReader(transport: transport, options: options, trace: trace)
        let started = Date()
        let read: VerifiedRead
        do {
            read = try await reader.readAndVerify(
                trustStore: trustStore, validationTime: validationTime, allowExpired: allowExpired, evidenceFolder: out,
                progress: Presentation.progressPrinter(quiet: quiet))
        } catch {
            Console.endLive()
            if !writeTrace(trace, started: started) {
                Console.err("emrtd: the APDU trace could not be written to \(Shown.path(tracePath ?? ""))")
            }
            let failure = error.failure
            switch failure.kind {
            case .accessControl: throw CLIError(.accessControl, failure.message, status: .accessControl)
            case .chip: throw CLIError(.chip, failure.message, status: .transport)
            case .transport, .cardRemoved, .readerUnavailable, .cancelled:
                throw CLIError(.transport, failure.message, status: .transport)
            }
        }
        let traceWritten = writeTrace(trace, started: started)
        let (result, verification, report) = (read.result, read.verification, read.report)
        if let out {
            do { try EvidenceBundle.write(result, report: report, extraFiles: extraBundleFiles, to: out) } catch {
                // in words, never the library's error (it names its folder problems by their Swift case)
                let why =
                    EvidenceBundle.checkFolder(out.path) == .notEmpty
                    ? "files appeared in the folder after it was checked" : "a file could not be written there"
                var e = CLIError(
                    .cannotWrite,
                    "could not write the evidence bundle to \(out.path) (\(why)); nothing was written there — free the"
                        + " folder or pick another --out",
                    status: .usage)
                e.report = report  // the read is done: its verdict is not lost with the bundle
                throw e
            }
        }
        if let htmlPath { try HTMLOutput.write(report, files: result.files, to: htmlPath) }
        if !traceWritten {
            var e = CLIError(
                .cannotWrite,
                "could not write the APDU trace to \(Shown.path(tracePath ?? "")) after the read (the file was"
                    + " writable when checked; is the disk full?)",
                status: .usage)
            e.report = report  // the read is done: its verdict is not lost with the trace
            throw e
        }
        return Outcome(report: report, result: result, verification: verification, bundle: out)
    }

    func print(_ o: Outcome) {
        Console.out(json ? Presentation.json(o.report) : Presentation.text(o.report))
    }

    /// `--trace FILE`, checked before a document is asked for, as `--out` and `--html` are.
    static func prepareTrace(_ path: String?) throws(CLIError) -> String? {
        try OutputFile.prepare(path, option: "--trace", what: "the APDU trace")
    }

    /// The trace file (docs/cli.md "Trace file"): one JSON object, keys sorted, with the read's start time and
    /// per-exchange times relative to it. Returns false when it could not be written (the file was checked before
    /// the read, so only a change since, such as a full disk, gets here).
    @discardableResult
    func writeTrace(_ trace: APDUTrace?, started: Date) -> Bool {
        guard let trace, let path = tracePath else { return true }
        let file = TraceFile(startedAt: Presentation.timestamp(started), exchanges: trace.all)
        guard let data = try? CanonicalJSON.data(file) else { return false }
        return FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600])
    }

    static func exitCode(for status: VerificationOutcome.Status) -> Int32 {
        switch status {
        case .accepted: return ExitStatus.ok.rawValue
        case .inconclusive: return ExitStatus.inconclusive.rawValue
        case .rejected: return ExitStatus.rejected.rawValue
        }
    }
}

/// The `--trace` file.
struct TraceFile: Encodable {
    var schema = "emrtd.trace/1"
    var startedAt: String
    var exchanges: [APDUTrace.Entry]
}

/// `--out DIR` (and `simulate --save DIR`), checked before any document is asked for or generated: a new or empty
/// folder whose parent is writable.
enum OutputFolder {
    static func prepare(_ path: String?, option: String = "--out", command: String) throws(CLIError) -> URL? {
        guard let path else { return nil }
        if let problem = EvidenceBundle.checkFolder(path) {
            let why: String
            switch problem {
            case .empty: why = "\(option) is empty: name a new or empty folder"
            case .root: why = "\(option) / is refused: name a new or empty folder"
            case .notAFolder: why = "\(option) \(path) exists and is not a folder: name a new or empty folder"
            case .notEmpty:
                why =
                    "\(option) \(path) already holds files: name a new or empty folder (move the old one away)"
            case .parentNotWritable:
                why =
                    "\(option) \(Shown.path(path)) cannot be created: its parent folder does not exist or is not writable"
            }
            throw CLIError(.outputNotUsable, why, status: .usage)
        }
        return URL(fileURLWithPath: path)
    }
}

/// Plain JSON text from dictionaries, with sorted keys and unescaped slashes (as every emrtd JSON output).
enum JSONText {
    static func render(_ object: Any) -> String {
        String(decoding: CanonicalJSON.data(object: object), as: UTF8.self)
    }

    static func encode<T: Encodable>(_ value: T, pretty: Bool = true) -> String {
        CanonicalJSON.string(value, pretty ? .pretty : .compact)
    }
}

extension JSONText {
    /// The JSON object `text` with a `"schema"` member added (for outputs whose model has none).
    static func addingSchema(_ schema: String, to text: String) -> String {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            return text
        }
        object["schema"] = schema
        return render(object)
    }
}
