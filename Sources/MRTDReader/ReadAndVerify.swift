public import ASN1TLV
import FaceImaging
public import Foundation
import MRTDDocument
public import MRTDTrust
import Synchronization

/// A read that was verified: what the chip gave, what verification found, and the report of both.
public struct VerifiedRead: Sendable {
    /// The files and facts of the read.
    public var result: ReadResult
    /// The checks and the verdict.
    public var verification: VerificationOutcome
    /// The report of docs/report.md (`ReportJSON` encodes it).
    public var report: ReadReport
}

extension DocumentReader {
    /// The read use case: reads the document, verifies it and builds its report. `emrtd demo`, `read` and
    /// `stepup run` and `emrtd serve` all call this, so a report means the same whichever front end made it.
    ///
    /// - Parameters:
    ///   - trustStore: the CSCAs (and CRLs) passive authentication anchors to.
    ///   - validationTime: the time certificates and the document's validity are checked at (now for a live read).
    ///   - allowExpired: a document past its date of expiry may still be accepted (the report records that it was
    ///     allowed); by default it is not.
    ///   - evidenceFolder: the folder the evidence bundle will be written to, if any: the report names the face
    ///     image's file there. This call writes nothing (`EvidenceBundle.write` does).
    ///   - progress: called from the reading task for each step (keep it quick).
    /// - Returns: the result, its verification and its report, with `readAt` (the read's start) and the Active
    ///   Authentication challenge the caller gave (`ReadOptions.activeAuthenticationChallenge`).
    /// - Throws: `ReadError` when the document could not be read; `ReadError.failure` classifies it.
    public func readAndVerify(
        trustStore: TrustStore, validationTime: ASN1Time = .now, allowExpired: Bool = false, evidenceFolder: URL? = nil,
        progress: (@Sendable (ReadEvent) -> Void)? = nil
    ) async throws(ReadError) -> VerifiedRead {
        let started = Date()
        // The face is decoded for the report as soon as DG2 is in, while the rest of the document is read.
        let faceCheck = EarlyFaceCheck()
        var reader = self
        let callerCompleted = options.fileCompleted
        reader.options.fileCompleted = { file, bytes in
            if file == .dg2 { faceCheck.start(dg2: bytes) }
            callerCompleted?(file, bytes)
        }
        let result = try await reader.read(progress: progress)
        progress?(ReadEvent(phase: .verifying, message: "verifying"))
        let verification = DocumentVerifier.verify(
            result, trustStore: trustStore, validationTime: validationTime, allowExpired: allowExpired)
        let facePath = evidenceFolder.flatMap { dir in
            result.document.faceImage.map { dir.appendingPathComponent(EvidenceBundle.faceImageName($0.format)).path }
        }
        var report = ReportBuilder.report(
            for: result, verification: verification, faceImagePath: facePath, faceCheck: await faceCheck.result())
        report.readAt = ReadReport.timestamp(started)
        report.activeAuthenticationChallenge = options.activeAuthenticationChallenge.map(Hex.encode)
        return VerifiedRead(result: result, verification: verification, report: report)
    }
}

/// The face's decoding for the report, started from DG2's bytes the moment DG2 is read (a detached task: the read
/// goes on meanwhile, waiting on the card). The report uses it only when it was made from the very image the
/// verified document holds (`ReportBuilder.faceImage`); a DG2 read again after a resumption starts a new one.
final class EarlyFaceCheck: Sendable {
    private let task = Mutex<Task<FaceDisplayCheck?, Never>?>(nil)

    /// The caller's display memo and decode log, which a detached task does not inherit: the early decoding is the
    /// same conversion the bundle and the HTML page reuse, and a log counting decodes sees it.
    private let memo = DisplayImageMemo.current
    private let log = ImageDecodeLog.current

    func start(dg2: [UInt8]) {
        let (memo, log) = (self.memo, self.log)
        let started = Task.detached(priority: .userInitiated) {
            DisplayImageMemo.$current.withValue(memo) {
                ImageDecodeLog.$current.withValue(log) { FaceDisplayCheck(dg2: dg2) }
            }
        }
        task.withLock { $0 = started }
    }

    /// The check, once done; nil when none was started.
    func result() async -> FaceDisplayCheck? {
        guard let running = task.withLock({ $0 }) else { return nil }
        return await running.value
    }
}

/// What kind of failure ended a read, for every front end alike (the CLI's exit status and error code, the
/// service's HTTP status and error code): one classification, so the two never disagree.
public struct ReadFailure: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Wrong MRZ/CAN, or the chip refused access control (exit status 4).
        case accessControl
        /// The reader failed, or the card left and was not presented again in time (exit status 3).
        case transport
        /// The document was removed and not presented again in time (a transport failure, told apart for the service).
        case cardRemoved
        /// The reader is gone (a transport failure, told apart for the service).
        case readerUnavailable
        /// The read was cancelled.
        case cancelled
        /// The chip answered in a way the reader cannot continue from (exit status 3).
        case chip
    }
    public var kind: Kind
    /// What happened, in words, with what to do; never access data.
    public var message: String
}

extension ReadError {
    /// This failure's class and message (with what to do).
    public var failure: ReadFailure {
        switch self {
        case .accessControl(let e):
            let hint = e.code == .wrongPassword ? " — check the MRZ/CAN" : ""
            return ReadFailure(kind: .accessControl, message: description + hint)
        case .transport(let t, _):
            switch t.kind {
            case .cancelled: return ReadFailure(kind: .cancelled, message: "the read was cancelled")
            case .readerUnavailable, .noReader: return ReadFailure(kind: .readerUnavailable, message: description)
            case .cardRemoved, .noCard, .timeout, .cardReset, .protocolError:
                return ReadFailure(
                    kind: .cardRemoved,
                    message: "\(description): the document was removed and not presented again in time — lay it on"
                        + " the reader and keep it still until the read ends")
            default:
                return ReadFailure(
                    kind: .transport,
                    message: "\(description) — check the reader and that the document lies still on it")
            }
        case .chip:
            return ReadFailure(
                kind: .chip,
                message:
                    "\(description) — try the read again; if it repeats, record an APDU trace and report it")
        }
    }
}
