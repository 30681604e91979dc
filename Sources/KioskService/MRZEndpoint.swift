import Foundation
import HTTPServer
import MRTDDocument
import MRZCapture
import Synchronization

/// `POST /v1/mrz` (docs/service.md): one camera frame or scan in the body (JPEG, PNG or PGM, declared by its
/// Content-Type), the MRZ read from it by `MRZRecognizer` — answered with what a read needs (the zone, the document
/// number and the two dates), its format and document code, and the recogniser's confidence. Nothing else of the
/// zone (no name, nationality or sex): the page needs the access data only.
///
/// Recognition costs a CPU for a second or two: at most `maxConcurrent` run at once, a further request is answered
/// 503 `mrz_busy` with `Retry-After` at once (no queue that grows). The image and the answer stay in memory; the
/// image is overwritten once read (the server overwrites the request body after the answer), neither is logged or
/// put in an event.
final class MRZEndpoint: Sendable {
    /// The body limit of `POST /v1/mrz`: a camera frame or a phone photo of the data page (the server answers 413
    /// before reading past it).
    static let maxBodyBytes = 8 << 20
    /// What an image may cost before it is decoded: the body limit, and 16 megapixels (the decoded colour copy of
    /// the largest is 64 MB, one at a time).
    static let limits = MRZCaptureLimits(maxInputBytes: maxBodyBytes, maxSide: 8192, maxPixels: 16_000_000)
    /// Recognitions at once (one Tesseract engine; its calls are serialised anyway).
    static let maxConcurrent = 1
    /// The media types accepted, and the image format each declares.
    static let mediaTypes: [String: MRZRecognizer.ImageFormat] = [
        "image/jpeg": .jpeg, "image/png": .png, "image/x-portable-graymap": .pnm,
    ]

    /// Where Tesseract's `eng.traineddata` is (nil: Tesseract's default or `TESSDATA_PREFIX`).
    let dataPath: String?
    /// The engine, loaded by the first request that needs it (about 100 ms) and kept.
    private let engine = Mutex<MRZRecognizer?>(nil)
    private let running = Atomic<Int>(0)

    init(dataPath: String?) { self.dataPath = dataPath }

    func handle(_ r: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard r.body.count <= Self.maxBodyBytes else { throw APIError.tooLarge }
        let declared = (r.header("Content-Type") ?? "").split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard let declared, let format = Self.mediaTypes[declared] else {
            throw APIError(
                415, "unsupported_media_type",
                "send the image as image/jpeg, image/png or image/x-portable-graymap")
        }
        guard !r.body.isEmpty else {
            throw APIError(400, "not_an_image", "the request body is empty; an image is expected")
        }
        // the header only, before the engine is asked for: a body that is not the declared image is refused at once
        do {
            let header = try MRZRecognizer.checkHeader(r.body, limits: Self.limits)
            guard header.format == format else {
                throw APIError(400, "not_an_image", "the body is not the \(declared) image its Content-Type declares")
            }
        } catch let error as MRZCaptureError {
            throw Self.apiError(error)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(500, "internal", "internal error")
        }
        guard running.add(1, ordering: .sequentiallyConsistent).newValue <= Self.maxConcurrent else {
            running.subtract(1, ordering: .sequentiallyConsistent)
            var busy = APIError(503, "mrz_busy", "the service is reading another image; send this one again shortly")
            busy.retryAfter = 1
            throw busy
        }
        defer { running.subtract(1, ordering: .sequentiallyConsistent) }
        let recognition: MRZRecognition
        let engine = try recognizer()
        do {
            // the recognising thread lets go of the image before the answer is written, so the body's one buffer
            // is the one the server overwrites (a reference still held would make that a copy)
            let image = Handoff(r.body)
            recognition = try Self.onLargeStack { () -> Result<MRZRecognition, MRZCaptureError> in
                defer { image.bytes = [] }
                do throws(MRZCaptureError) {
                    return .success(try engine.recognize(image.bytes))
                } catch { return .failure(error) }
            }.get()
        } catch {
            throw Self.apiError(error)
        }
        let m = recognition.mrz
        return KioskAPI.json(
            200,
            [
                "format": m.format.rawValue, "documentCode": m.documentCode, "mrz": m.lines.joined(separator: "\n"),
                "documentNumber": m.documentNumber, "dateOfBirth": m.dateOfBirth.raw,
                "dateOfExpiry": m.dateOfExpiry.raw,
                "confidence": (recognition.confidence * 100).rounded() / 100, "corrections": recognition.corrections,
            ])
    }

    /// The image, handed to the recognising thread and taken back from it.
    final class Handoff: @unchecked Sendable {
        var bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    /// Runs `body` on a thread with an 8 MiB stack and waits for it: Tesseract and Leptonica need more stack than
    /// the HTTP server's connection threads have (512 KiB).
    static func onLargeStack<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        done.wait()
        return result.withLock { $0! }
    }

    private func recognizer() throws(APIError) -> MRZRecognizer {
        try engine.withLock { e throws(APIError) -> MRZRecognizer in
            if let e { return e }
            // Tesseract 5.0 crashes on a model folder without the model: the folder is checked first
            if let dataPath, !FileManager.default.isReadableFile(atPath: dataPath + "/eng.traineddata") {
                throw Self.apiError(code: .engineUnavailable)
            }
            do throws(MRZCaptureError) {
                let made = try MRZRecognizer(limits: Self.limits, dataPath: dataPath)
                e = made
                return made
            } catch {
                throw Self.apiError(error)
            }
        }
    }

    /// The recogniser's failure as the API says it: which step failed, never a recognised character (the
    /// recogniser's reasons name sizes, formats and steps only; only the size reason is passed on).
    static func apiError(_ e: MRZCaptureError) -> APIError { apiError(code: e.code, reason: e.reason) }

    static func apiError(code: MRZCaptureError.Code, reason: String = "") -> APIError {
        switch code {
        case .notAnImage:
            return APIError(400, "not_an_image", "the body is not a JPEG, PNG or PGM image")
        case .decodeFailed:
            return APIError(400, "image_undecodable", "the image could not be decoded")
        case .tooLarge:
            return APIError(413, "image_too_large", "the image is too large: \(reason)")
        case .noMRZFound:
            return APIError(422, "no_mrz", "no machine-readable zone was found in the image")
        case .unreadable:
            return APIError(
                422, "mrz_unreadable",
                "a machine-readable zone was found but could not be read with every check digit holding")
        case .engineUnavailable:
            return APIError(
                503, "mrz_engine_unavailable",
                "the MRZ recogniser is not available on this service (Tesseract with its eng model)")
        }
    }
}
