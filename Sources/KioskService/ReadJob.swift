import FaceImaging
import Foundation
import Glibc
import HTTPServer
import MRTDDocument
import MRTDReader
import Synchronization

/// One read through the API: its state, progress, outcome and event subscribers. Personal data (the
/// report, the face) lives here, in memory, until the read is forgotten.
final class ReadJob: Sendable {
    enum Status: String { case waiting, reading, done, failed, cancelled }

    struct Progress {
        var phase = "waiting"
        var file: String?
        var bytes = 0
        var total: Int?
        /// bytes read of the files seen so far, for an overall percentage
        var fileTotals: [String: (done: Int, total: Int)] = [:]

        var percent: Int {
            if phase == ReadPhase.done.rawValue || phase == ReadPhase.verifying.rawValue { return 100 }
            let done = fileTotals.values.reduce(0) { $0 + $1.done }
            let total = fileTotals.values.reduce(0) { $0 + $1.total }
            guard total > 0 else { return 0 }
            return min(99, done * 100 / total)
        }

        var json: [String: Any] {
            var o: [String: Any] = ["phase": phase, "bytes": bytes, "percent": percent]
            if let file { o["file"] = file }
            if let total { o["total"] = total }
            return o
        }
    }

    struct State {
        var status = Status.waiting
        var progress = Progress()
        var cardPresent = false
        var lostCard = false
        var resumptions = 0
        /// The report exactly as `emrtd read --json` prints it.
        var report: PersonalBytes?
        var verdict: String?
        var face: (bytes: PersonalBytes, format: ImageFormat)?
        /// The document's other images (DG5, DG7, DG11, DG12) as stored, for the kiosk's result.
        var images: [(label: String, mimeType: String, bytes: PersonalBytes)] = []
        /// The face as JPEG, converted once (`displayFace()`); `.failure`: it cannot be shown.
        var displayFace: Result<PersonalBytes, ImageCodecError>?
        /// The other images as the result page shows them, converted once (`displayImages()`).
        var displayImages: [(label: String, mimeType: String, bytes: PersonalBytes)]?
        /// The read's image conversions (the face converted by the report's check), reused by `displayFace()`.
        var memo: DisplayImageMemo?
        var error: APIError?
        var finishedAt: ContinuousClock.Instant?
        var task: Task<Void, Never>?
        /// extra members of the read's JSON, as encoded JSON (the timing, the step-up result)
        var extra: [String: PersonalBytes] = [:]
    }

    let id: String
    let reader: String
    let created = ContinuousClock.now
    private let state = Mutex(State())
    let subscribers: Subscribers
    /// Tells the terminal's event stream about state changes.
    let onStatus: @Sendable (ReadJob, Status) -> Void

    init(id: String, reader: String, subscriberLimit: Int, onStatus: @escaping @Sendable (ReadJob, Status) -> Void) {
        self.id = id
        self.reader = reader
        self.subscribers = Subscribers(limit: subscriberLimit)
        self.onStatus = onStatus
    }

    var status: Status { state.withLock { $0.status } }
    var isFinished: Bool { state.withLock { $0.finishedAt != nil } }
    var finishedAt: ContinuousClock.Instant? { state.withLock { $0.finishedAt } }
    /// A copy of the face image (the job's own buffer never leaves it, so that forgetting can overwrite it).
    var face: (bytes: [UInt8], format: ImageFormat)? {
        state.withLock { s in s.face.map { (bytes: $0.bytes.copy(), format: $0.format) } }
    }

    /// Copies of the document's other images (DG5, DG7, DG11, DG12), as stored.
    var documentImages: [HTMLReport.Image] {
        state.withLock { s in
            s.images.map { HTMLReport.Image(label: $0.label, bytes: $0.bytes.copy(), mimeType: $0.mimeType) }
        }
    }

    /// The buffers of personal data the job holds now (the tests check that forgetting overwrites them).
    var personalData: [PersonalBytes] {
        state.withLock { s in Self.held(s) }
    }

    private static func held(_ s: State) -> [PersonalBytes] {
        var shown: [PersonalBytes] = (s.displayImages ?? []).map(\.bytes)
        if case .success(let face)? = s.displayFace { shown.append(face) }
        return [s.report, s.face?.bytes].compactMap { $0 } + s.images.map(\.bytes) + s.extra.values + shown
    }

    /// The face as every browser shows it (a stored JPEG as it is, JPEG 2000 decoded and re-encoded), converted at
    /// most once per read and kept with it (forgetting overwrites it); nil when no face was read. Conversions run
    /// one at a time in the whole service (`ImageDecodeGate`), so requests cannot multiply the decoder's memory.
    func displayFace() -> Result<[UInt8], ImageCodecError>? {
        ImageDecodeGate.run { () -> Result<[UInt8], ImageCodecError>? in
            if let done = state.withLock({ $0.displayFace }) { return done.map { $0.copy() } }
            guard let face = self.face else { return nil }
            let made: Result<[UInt8], ImageCodecError>
            let memo = state.withLock { $0.memo }
            made = DisplayImageMemo.$current.withValue(memo) { () -> Result<[UInt8], ImageCodecError> in
                do throws(ImageCodecError) { return .success(try DisplayImage.displayJPEG(from: face.bytes)) } catch {
                    return .failure(error)
                }
            }
            let kept = made.map { PersonalBytes(copying: $0) }
            let stored = state.withLock { s -> Bool in
                guard s.face != nil else { return false }  // forgotten meanwhile: keep nothing
                s.displayFace = kept
                return true
            }
            if !stored, case .success(let b) = kept { b.overwrite() }
            return made
        }
    }

    /// The document's other images as the result page shows them (`HTMLReport.displayable`, one
    /// `DocumentImageBudget`), converted at most once per read, like `displayFace()`.
    func displayImages() -> [HTMLReport.Image] {
        func copies(_ list: [(label: String, mimeType: String, bytes: PersonalBytes)]) -> [HTMLReport.Image] {
            list.map { HTMLReport.Image(label: $0.label, bytes: $0.bytes.copy(), mimeType: $0.mimeType) }
        }
        return ImageDecodeGate.run { () -> [HTMLReport.Image] in
            if let done = state.withLock({ $0.displayImages }) { return copies(done) }
            let made = HTMLReport.displayable(documentImages)
            let kept = made.map { (label: $0.label, mimeType: $0.mimeType, bytes: PersonalBytes(copying: $0.bytes)) }
            let stored = state.withLock { s -> Bool in
                guard s.report != nil else { return false }  // forgotten meanwhile
                s.displayImages = kept
                return true
            }
            if !stored { for k in kept { k.bytes.overwrite() } }
            return made
        }
    }

    func setTask(_ t: Task<Void, Never>) { state.withLock { $0.task = t } }

    /// Cancels the running work (the PC/SC wait or transmit is cancelled through the task).
    func cancel() -> Bool {
        let task: Task<Void, Never>? = state.withLock { s in
            guard s.finishedAt == nil else { return nil }
            s.status = .cancelled
            s.finishedAt = .now
            s.error = APIError(409, "cancelled", "the read was cancelled")
            subscribers.send(SSE.frame("state", ["id": id, "status": Status.cancelled.rawValue]))
            subscribers.send(SSE.frame("error", ["id": id, "code": "cancelled", "message": "the read was cancelled"]))
            return s.task
        }
        guard let task else { return false }
        // cancellation handlers run synchronously (SCardCancel): never on the caller's (HTTP) thread
        Task.detached { task.cancel() }
        subscribers.finishAll()
        onStatus(self, .cancelled)
        return true
    }

    /// The JSON of `GET /v1/reads/{id}`.
    func json() -> [UInt8] {
        state.withLock { s in
            var o: [String: Any] = [
                "id": id, "reader": reader, "status": s.status.rawValue, "progress": s.progress.json,
            ]
            if let e = s.error { o["error"] = ["code": e.code, "message": e.message] }
            var members = s.extra.map { (key: $0.key, raw: $0.value.copy()) }
            if let r = s.report { members.append((key: "report", raw: r.copy())) }
            return JSON.encode(o, adding: members)
        }
    }

    /// Subscribes a stream: first the current state (and the outcome when finished), then what follows.
    func subscribe(_ stream: HTTPStream) -> Bool {
        state.withLock { s in
            guard subscribers.add(stream) || s.finishedAt != nil else { return false }
            stream.send(
                SSE.frame(
                    "state",
                    [
                        "id": id, "status": s.status.rawValue, "progress": s.progress.json,
                        "cardPresent": s.cardPresent,
                    ]))
            if s.finishedAt != nil {
                stream.send(outcomeFrame(s))
                stream.finish()
                subscribers.remove(stream)
            }
            return true
        }
    }

    private func outcomeFrame(_ s: State) -> [UInt8] {
        if let e = s.error { return SSE.frame("error", ["id": id, "code": e.code, "message": e.message]) }
        var o: [String: Any] = ["id": id, "status": s.status.rawValue]
        if let v = s.verdict { o["verdict"] = v }
        return SSE.frame("result", o)
    }

    // MARK: - Updates from the read task

    func setStatus(_ status: Status) {
        let changed = state.withLock { s -> Bool in
            guard s.finishedAt == nil, s.status != status else { return false }
            s.status = status
            subscribers.send(SSE.frame("state", ["id": id, "status": status.rawValue]))
            return true
        }
        if changed { onStatus(self, status) }
    }

    func card(present: Bool) {
        state.withLock { s in
            guard s.finishedAt == nil, s.cardPresent != present else { return }
            s.cardPresent = present
            subscribers.send(SSE.frame("card", ["id": id, "present": present]))
        }
    }

    func progress(_ e: ReadEvent) {
        let resumedNow = state.withLock { s -> Bool in
            guard s.finishedAt == nil else { return false }
            if e.phase == .resuming {
                s.lostCard = true
                if s.cardPresent {
                    s.cardPresent = false
                    subscribers.send(SSE.frame("card", ["id": id, "present": false]))
                }
                s.progress.phase = e.phase.rawValue
                subscribers.send(SSE.frame("progress", s.progress.json))
                return false
            }
            var resumed = false
            if s.lostCard {
                s.lostCard = false
                s.resumptions += 1
                resumed = true
                if !s.cardPresent {
                    s.cardPresent = true
                    subscribers.send(SSE.frame("card", ["id": id, "present": true]))
                }
                subscribers.send(SSE.frame("resumed", ["id": id, "resumptions": s.resumptions]))
            }
            s.progress.phase = e.phase.rawValue
            s.progress.file = e.file?.rawValue
            s.progress.bytes = e.bytesDone
            s.progress.total = e.bytesTotal
            if let f = e.file, let t = e.bytesTotal { s.progress.fileTotals[f.rawValue] = (e.bytesDone, t) }
            subscribers.send(SSE.frame("progress", s.progress.json))
            return resumed
        }
        _ = resumedNow
    }

    /// The read ended with a verdict.
    func finish(
        report: [UInt8], verdict: String, face: (bytes: [UInt8], format: ImageFormat)?,
        images: [HTMLReport.Image] = [], extra: [String: [UInt8]] = [:], memo: DisplayImageMemo? = nil
    ) {
        var kept = false
        end(.done) { s in
            s.memo = memo
            kept = true
            s.progress.phase = ReadPhase.done.rawValue
            s.report = PersonalBytes(copying: report)
            s.verdict = verdict
            s.face = face.map { (bytes: PersonalBytes(copying: $0.bytes), format: $0.format) }
            s.images = images.map { (label: $0.label, mimeType: $0.mimeType, bytes: PersonalBytes(copying: $0.bytes)) }
            s.extra = extra.mapValues { PersonalBytes(copying: $0) }
        }
        if !kept { memo?.forget() }  // the job had already ended (cancelled): nothing keeps the conversions
    }

    /// The read ended without a verdict.
    func fail(_ error: APIError) {
        end(.failed) { $0.error = error }
    }

    /// Records the outcome once (a cancelled read stays cancelled), tells the subscribers and ends their streams.
    private func end(_ status: Status, _ record: (inout State) -> Void) {
        let ended = state.withLock { s -> Bool in
            guard s.finishedAt == nil else { return false }
            s.status = status
            record(&s)
            s.finishedAt = .now
            s.task = nil
            subscribers.send(SSE.frame("state", ["id": id, "status": status.rawValue]))
            subscribers.send(outcomeFrame(s))
            return true
        }
        if ended {
            subscribers.finishAll()
            onStatus(self, status)
        }
    }

    /// Forgets the personal data — overwriting the job's own buffers of it with zeros first — and closes the
    /// streams (DELETE, retention, the finished-read limit, shutdown).
    func wipe() {
        let (task, held, memo) = state.withLock { s -> (Task<Void, Never>?, [PersonalBytes], DisplayImageMemo?) in
            let t = s.finishedAt == nil ? s.task : nil
            let held = Self.held(s)
            s.report = nil
            s.face = nil
            s.images = []
            s.displayFace = nil
            s.displayImages = nil
            s.extra = [:]
            s.task = nil
            let memo = s.memo
            s.memo = nil
            return (t, held, memo)
        }
        for b in held { b.overwrite() }
        memo?.forget()
        if let task { Task.detached { task.cancel() } }
        subscribers.finishAll()
    }
}

/// Personal data the service keeps for a finished read (the report, the face, the step-up result) in a buffer
/// of its own: filled with a copy of what it is given, read out only as copies, so that nothing else shares
/// the buffer and `overwrite()` zeroes the very bytes that were kept (an array shared with another value
/// would be copied before being written to, and the zeros would land in the copy). What cannot be
/// guaranteed: the copies made to answer requests and to build the report are freed without being
/// overwritten (docs/service.md, "Privacy").
final class PersonalBytes: Sendable {
    private let storage: Mutex<[UInt8]>

    init(copying bytes: [UInt8]) { storage = Mutex(bytes.withUnsafeBufferPointer { Array($0) }) }

    /// A copy of the bytes, in a buffer of its own.
    func copy() -> [UInt8] { storage.withLock { b in b.withUnsafeBufferPointer { Array($0) } } }

    /// Overwrites the kept bytes with zeros, in place (`explicit_bzero`: a write the compiler may not drop).
    func overwrite() {
        storage.withLock { b in b.withUnsafeMutableBytes { if let p = $0.baseAddress { explicit_bzero(p, $0.count) } } }
    }

    var count: Int { storage.withLock { $0.count } }
    var isZero: Bool { storage.withLock { b in b.allSatisfy { $0 == 0 } } }
}

/// One image conversion at a time in the whole service: a decode's memory is bounded by `ImageLimits`, and this
/// keeps concurrent requests (six parallel `/face` requests, say) from multiplying it.
enum ImageDecodeGate {
    private static let lock = Mutex(())

    static func run<T: Sendable>(_ body: () -> T) -> T {
        lock.withLock { _ in body() }
    }
}
