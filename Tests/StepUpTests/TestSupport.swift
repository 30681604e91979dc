import EMRTDCLI
import Foundation
import Testing

@testable import StepUp

/// Collects log lines, output and the waits the client asked for (tests never really sleep).
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var _lines: [String] = []
    private var _stdout: [String] = []
    private var _stderr: [String] = []
    private var _sleeps: [Double] = []

    func log(_ s: String) {
        lock.lock()
        _lines.append(s)
        lock.unlock()
    }
    func out(_ s: String) {
        lock.lock()
        _stdout.append(s)
        lock.unlock()
    }
    func err(_ s: String) {
        lock.lock()
        _stderr.append(s)
        lock.unlock()
    }
    func slept(_ s: Double) {
        lock.lock()
        _sleeps.append(s)
        lock.unlock()
    }

    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return _lines
    }
    var stdout: String {
        lock.lock()
        defer { lock.unlock() }
        return _stdout.joined(separator: "\n")
    }
    var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return _stderr.joined(separator: "\n")
    }
    var sleeps: [Double] {
        lock.lock()
        defer { lock.unlock() }
        return _sleeps
    }
    /// Everything that went anywhere.
    var everything: String { ([stdout, stderr] + lines).joined(separator: "\n") }

    var stdoutJSON: JSONValue? { try? JSONValue.parse(Data(stdout.utf8)) }
}

/// A settable clock.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var t: Date
    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { t = start }
    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return t
    }
    func advance(_ s: Double) {
        lock.lock()
        t = t.addingTimeInterval(s)
        lock.unlock()
    }
}

func makeHTTP(
    _ rec: Recorder, timeout: Double = 5, retry: RetryPolicy = .default,
    clock: TestClock? = nil
) -> StepUpHTTPClient {
    StepUpHTTPClient(
        transport: URLSessionHTTPTransport(), timeout: timeout, retry: retry,
        logger: StepUpLogger { rec.log($0) }, sleep: { rec.slept($0) },
        now: { clock?.now ?? Date() })
}

func expectNoSecret(_ text: String, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    for s in secrets where !s.isEmpty {
        #expect(!text.contains(s), "a secret leaked into output", sourceLocation: sourceLocation)
    }
}

/// Runs `body` and returns the `StepUpError` it throws (records an issue otherwise).
func stepUpError(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async
    -> StepUpError?
{
    do {
        try await body()
        Issue.record("expected a StepUpError, got success", sourceLocation: sourceLocation)
    } catch let e as StepUpError {
        return e
    } catch {
        Issue.record("expected a StepUpError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A fake chip reader: returns a canned result and remembers the plan it got.
final class FakeChipReader: ReadIDChipReader, @unchecked Sendable {
    private let lock = NSLock()
    private var _plans: [ReadIDPlan] = []
    let result: Result<ReadIDChipResult, any Error>

    init(_ result: Result<ReadIDChipResult, any Error>) { self.result = result }

    convenience init(
        status: StepUpStatus, verification: ChipVerification = .succeeded,
        clone: ChipCloneDetection = .succeeded, activeAuthentication: Bool = false
    ) {
        self.init(
            .success(
                ReadIDChipResult(
                    status: status, chipVerification: verification, chipCloneDetection: clone,
                    document: ReadIDDocumentFields(
                        documentType: "PASSPORT", documentCode: "P", documentNumber: "L898902C3",
                        issuingCountry: "UTO", nationality: "UTO", dateOfBirth: "1974-08-12",
                        dateOfExpiry: "2032-04-15", gender: "F", firstName: "ANNA MARIA",
                        lastName: "ERIKSSON", personalIdentificationNumber: "ZE184226B"),
                    evidence: EvidenceReference(
                        bundlePath: "/tmp/evidence/0dca14cf", reportPath: "/tmp/evidence/0dca14cf/report.json"),
                    activeAuthenticationPassed: activeAuthentication)))
    }

    var plans: [ReadIDPlan] {
        lock.lock()
        defer { lock.unlock() }
        return _plans
    }

    func read(_ plan: ReadIDPlan) async throws -> ReadIDChipResult {
        record(plan)
        return try result.get()
    }

    private func record(_ plan: ReadIDPlan) {
        lock.lock()
        _plans.append(plan)
        lock.unlock()
    }
}

/// What `emrtd stepup run`'s own chip reader throws when the chip refuses the access data.
let fakeAccessDenied = CLIError(
    .accessControl, "access control failed: the chip refused the MRZ", status: .accessControl)
