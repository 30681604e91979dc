import Dispatch
import Foundation
import HTTPServer
import MRTDCrypto
import MRTDDocument
import MRTDReader
import StepUp

/// `POST /v1/stepup`: `{"context": <an operation context or operation object as `emrtd stepup run` takes
/// it>, "access"?, "reader"?, "waitSeconds"?, "bacFallback"?, "bindProcessId"?}`. ReadID → a read as
/// `POST /v1/reads` starts it, whose finished JSON also carries `stepup` (the `emrtd.stepup-result/1`
/// document); VideoID → the launch data at once.
enum StepUpEndpoint {
    static func handle(_ body: [String: Any], service: KioskService) throws(APIError) -> APIResponse {
        let known: Set<String> = ["context", "access", "reader", "waitSeconds", "bacFallback", "bindProcessId"]
        if let unknown = body.keys.sorted().first(where: { !known.contains($0) }) {
            throw APIError.unknownField(unknown)
        }
        guard let context = body["context"], context is [String: Any],
            let data = try? JSONSerialization.data(withJSONObject: context)
        else {
            throw APIError(
                400, "bad_context", "context must be the operation context or operation object (a JSON object)")
        }
        let operation: SignicatOperation
        var redactor = Redactor()
        do {
            operation = try StepUpInput.parse(data).operation
            if let t = operation.token { redactor.add(t) }
            try operation.requireReadyForProofing()
        } catch let e as StepUpError {
            throw APIError(400, "bad_context", redactor.redact("the step-up context is not usable: \(e.reason)"))
        } catch {
            throw APIError(400, "bad_context", "the step-up context is not usable")
        }
        switch StepUpRoute(operation) {
        case .videoID:
            return try videoID(operation, redactor: redactor)
        case .readID:
            let bind = body["bindProcessId"] as? Bool ?? false
            let plan: ReadIDPlan
            do {
                plan = try ReadIDPlan.make(
                    for: operation, binding: bind ? .processId(sha256: { HashAlgorithm.sha256.hash($0) }) : .none)
            } catch let e as StepUpError {
                throw APIError(400, "bad_context", redactor.redact("the ReadID operation is not usable: \(e.reason)"))
            } catch {
                throw APIError(400, "bad_context", "the ReadID operation is not usable")
            }
            var readBody: [String: Any] = [:]
            for k in ["access", "reader", "waitSeconds", "bacFallback"] { readBody[k] = body[k] }
            var request = try ReadRequest(json: readBody)
            var files = Set<LDSFile>()
            for f in plan.files { if let l = LDSFile(rawValue: f.rawValue) { files.insert(l) } }
            request.files = files
            if let c = plan.activeAuthenticationChallenge { request.aaChallenge = c }
            let job = try service.startRead(request) { [redactor] report, verification in
                let result = ReadIDChipResult(report: report, verification: verification, bundle: nil)
                let (document, _) = StepUpResultDocument.make(plan: plan, result: result)
                guard let json = try? JSONValue(encoding: document).redacted(by: redactor) else { return [:] }
                return ["stepup": Array(json.prettyPrinted().utf8)]
            }
            return KioskAPI.json(
                201,
                ["id": job.id, "status": ReadJob.Status.waiting.rawValue, "reader": job.reader, "provider": "readid"],
                extra: [("Location", "/v1/reads/\(job.id)")])
        }
    }

    /// VideoID: asks Signicat for the launch data (bounded wait on this connection's own thread).
    static func videoID(_ operation: SignicatOperation, redactor: Redactor) throws(APIError) -> APIResponse {
        final class Box: @unchecked Sendable { var result: Result<VideoIDLaunchData, any Error>? }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        let task = Task.detached {
            do {
                box.result = .success(try await VideoIDClient(http: StepUpHTTPClient(timeout: 30)).authorize(operation))
            } catch {
                box.result = .failure(error)
            }
            done.signal()
        }
        guard done.wait(timeout: .now() + 35) == .success, let result = box.result else {
            task.cancel()
            throw APIError(504, "stepup_remote", "the VideoID request did not complete in time")
        }
        switch result {
        case .success(let launch):
            guard let json = try? JSONValue(encoding: launch),
                let object = try? JSONSerialization.jsonObject(with: Data(json.prettyPrinted().utf8)) as? [String: Any]
            else {
                throw APIError(500, "internal", "the launch data could not be encoded")
            }
            return KioskAPI.json(200, ["provider": "videoid", "launch": object])
        case .failure(let e as StepUpError):
            throw APIError(502, "stepup_remote", redactor.redact("the VideoID request failed: \(e.reason)"))
        case .failure:
            throw APIError(502, "stepup_remote", "the VideoID request failed")
        }
    }
}
