import ASN1TLV
import CanonicalJSON
import FaceImaging
public import Foundation
import HTTPServer
import ISO7816
import MRTDDocument
import MRTDReader
public import MRTDTrust
import PCSCTransport
import Synchronization

/// Extra members of a finished read's JSON (the step-up result), computed from its report.
typealias ResultAttachment = @Sendable (ReadReport, VerificationOutcome) async -> [String: [UInt8]]

/// What `emrtd serve` configures.
public struct KioskConfiguration: Sendable {
    /// The bearer token every `/v1` request must carry (from `--token-file`).
    public var token: String
    /// Seconds a finished read is kept before it is forgotten.
    public var retentionSeconds: Double
    /// Finished reads kept at most (the oldest is forgotten first).
    public var maxFinishedReads: Int
    /// Event-stream clients per read and for the terminal stream.
    public var maxSubscribers: Int
    /// Where each finished read's evidence bundle goes (0700 folder, 0600 files); nil: memory only.
    public var evidenceDirectory: URL?
    /// The tool's version for `/v1/health`.
    public var version: String
    /// Whether non-loopback clients are expected (`--allow-remote`): Host may then be any IP literal.
    public var allowRemote: Bool
    /// The folder of Tesseract's `eng.traineddata` for `POST /v1/mrz` (nil: Tesseract's default or
    /// `TESSDATA_PREFIX`).
    public var mrzDataPath: String?

    public init(
        token: String, retentionSeconds: Double = 120, maxFinishedReads: Int = 16, maxSubscribers: Int = 64,
        evidenceDirectory: URL? = nil, version: String, allowRemote: Bool = false, mrzDataPath: String? = nil
    ) {
        self.mrzDataPath = mrzDataPath
        self.token = token
        self.retentionSeconds = retentionSeconds
        self.maxFinishedReads = maxFinishedReads
        self.maxSubscribers = maxSubscribers
        self.evidenceDirectory = evidenceDirectory
        self.version = version
        self.allowRemote = allowRemote
    }
}

/// The kiosk service behind `emrtd serve`: the reader registry (kept by a PC/SC event monitor that
/// survives pcscd restarts), one read at a time per reader, reads on different readers in parallel,
/// per-read and terminal event streams, retention of finished reads.
public final class KioskService: Sendable {
    let config: KioskConfiguration
    private let trust: Mutex<TrustStore>
    let registry = ReaderRegistry()
    private let reads = Mutex<[String: ReadJob]>([:])
    /// reader name → id of the read running on it
    private let busy = Mutex<[String: String]>([:])
    /// reader name → the end of the last read's card session there (its disconnect, which resets the card):
    /// the next read on that reader waits for it before it touches the card, or the reset would land in the
    /// middle of the next read's access control
    private let sessionEnds = Mutex<[String: Task<Void, Never>]>([:])
    let terminal: Subscribers
    private let background = Mutex<[Task<Void, Never>]>([])
    private let stopping = Atomic<Bool>(false)

    /// Where the readers and documents come from.
    let readers: any KioskReaders
    /// `POST /v1/mrz`: the recogniser, loaded on first use, and its concurrency bound.
    let mrz: MRZEndpoint

    /// A service over `readers` (pcscd's by default; a test gives it virtual chips in process).
    public init(configuration: KioskConfiguration, trust: TrustStore, readers: any KioskReaders = PCSCReaders()) {
        self.config = configuration
        self.readers = readers
        self.trust = Mutex(trust)
        self.terminal = Subscribers(limit: configuration.maxSubscribers)
        self.mrz = MRZEndpoint(dataPath: configuration.mrzDataPath)
    }

    /// Starts the reader monitor and the retention sweeper.
    public func start() {
        let monitor = Task.detached { [weak self] () -> Void in await self?.monitorReaders() }
        let sweeper = Task.detached { [weak self] () -> Void in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                self?.sweep()
            }
        }
        background.withLock { $0 = [monitor, sweeper] }
    }

    /// Replaces the trust store (SIGHUP) without touching running reads: a read verifies with the store
    /// that is current when its chip read ends.
    public func setTrust(_ store: TrustStore) { trust.withLock { $0 = store } }

    /// Cancels every read, ends every stream, stops the monitor.
    public func shutdown() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        for t in background.withLock({ $0 }) { t.cancel() }
        let jobs = reads.withLock { r in
            let v = Array(r.values)
            r.removeAll()
            return v
        }
        for j in jobs {
            _ = j.cancel()
            j.wipe()
        }
        terminal.finishAll()
    }

    // MARK: - Reads

    func job(_ id: String) -> ReadJob? { reads.withLock { $0[id] } }

    var readsSnapshot: [ReadJob] { reads.withLock { Array($0.values) } }

    /// Starts a read; the request was checked already.
    func startRead(_ request: ReadRequest, attach: ResultAttachment? = nil) throws(APIError) -> ReadJob {
        guard !stopping.load(ordering: .sequentiallyConsistent) else {
            throw APIError(503, "stopping", "the service is stopping")
        }
        let reader = try registry.resolve(request.reader, busy: busy.withLock { Set($0.keys) }, readers: readers)
        let id = Self.newID()
        let job = ReadJob(id: id, reader: reader, subscriberLimit: config.maxSubscribers) { [weak self] job, status in
            self?.statusChanged(job, status)
        }
        let claimed = busy.withLock { b -> Bool in
            guard b[reader] == nil else { return false }
            b[reader] = id
            return true
        }
        guard claimed else { throw APIError(409, "reader_busy", "a read is already running on \(reader)") }
        reads.withLock { $0[id] = job }
        terminal.send(SSE.frame("read", ["id": id, "reader": reader, "status": ReadJob.Status.waiting.rawValue]))
        let task = Task.detached { [weak self] in
            guard let self else { return }
            await self.run(job, request, attach: attach)
            self.busy.withLock { b in if b[reader] == id { b[reader] = nil } }
        }
        job.setTask(task)
        return job
    }

    /// Forgets a read (cancelling it when it runs). False when unknown.
    func delete(_ id: String) -> Bool {
        guard let job = reads.withLock({ $0.removeValue(forKey: id) }) else { return false }
        _ = job.cancel()
        job.wipe()
        return true
    }

    private func statusChanged(_ job: ReadJob, _ status: ReadJob.Status) {
        terminal.send(SSE.frame("read", ["id": job.id, "reader": job.reader, "status": status.rawValue]))
        if job.isFinished { enforceFinishedLimit() }
    }

    private func enforceFinishedLimit() {
        let evicted = reads.withLock { r -> [ReadJob] in
            let finished = r.values.filter(\.isFinished).sorted {
                ($0.finishedAt ?? $0.created) < ($1.finishedAt ?? $1.created)
            }
            let excess = finished.count - config.maxFinishedReads
            guard excess > 0 else { return [] }
            let out = Array(finished.prefix(excess))
            for j in out { r[j.id] = nil }
            return out
        }
        for j in evicted { j.wipe() }
    }

    /// Forgets finished reads older than the retention.
    func sweep() {
        let now = ContinuousClock.now
        let retention = Duration.milliseconds(Int64(config.retentionSeconds * 1000))
        let expired = reads.withLock { r -> [ReadJob] in
            let out = r.values.filter { j in j.finishedAt.map { now - $0 >= retention } ?? false }
            for j in out { r[j.id] = nil }
            return out
        }
        for j in expired { j.wipe() }
    }

    /// How long the next read on a reader waits for the previous card session's end (its disconnect) at most.
    static let sessionEndWait: Double = 5

    /// Waits until `task` ends or `seconds` have passed, whichever comes first; true when the task ended. A task that
    /// never ends is left running (awaiting a task's value cannot be cancelled), but nobody waits for it.
    static func wait(for task: Task<Void, Never>, atMost seconds: Double) async -> Bool {
        await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            let resumed = Mutex(false)
            let finish: @Sendable (Bool) -> Void = { ended in
                let first = resumed.withLock { r in
                    defer { r = true }
                    return !r
                }
                if first { done.resume(returning: ended) }
            }
            Task {
                await task.value
                finish(true)
            }
            Task {
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                finish(false)
            }
        }
    }

    /// 128 random bits in hex.
    static func newID() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(UInt8.random(in: 0...255, using: &g), radix: 16).leftPadded() }.joined()
    }

    // MARK: - One read

    private func run(_ job: ReadJob, _ request: ReadRequest, attach: ResultAttachment?) async {
        job.setStatus(.waiting)
        // the reader was released when the previous read's result was ready; its card session ends just after
        // — but not forever: a disconnect that hangs (a wedged pcscd or driver) must not block this reader for good
        if let previous = sessionEnds.withLock({ $0[job.reader] }) {
            _ = await Self.wait(for: previous, atMost: Self.sessionEndWait)
        }
        let session: KioskCardSession
        do {
            session = try await readers.connectWhenPresented(reader: job.reader, timeout: request.waitSeconds)
        } catch {
            busy.withLock { b in if b[job.reader] == job.id { b[job.reader] = nil } }
            job.fail(Self.apiError(waiting: error))
            return
        }
        // The end of the read: the card session's end (its disconnect, which resets the card) starts and is noted for
        // the next read on this reader, and the reader is released — both before the outcome is published, so that a
        // client that starts the next read as soon as it sees this one done finds the reader free (no 409), and that
        // read waits for this disconnect before it touches the card. The result itself does not wait for it.
        var released = false
        func release() {
            guard !released else { return }
            released = true
            let end = Task.detached { () -> Void in await session.end() }
            sessionEnds.withLock { $0[job.reader] = end }
            busy.withLock { b in if b[job.reader] == job.id { b[job.reader] = nil } }
        }
        defer { release() }
        let connected = ContinuousClock.now
        job.card(present: true)
        job.setStatus(.reading)
        let (transport, presented) = (session.transport, session.presented)
        let clock = FirstAPDUClock(transport)
        let reader = DocumentReader(transport: clock, options: request.readOptions)
        let bundle = config.evidenceDirectory?.appendingPathComponent(job.id)
        let read: VerifiedRead
        // the chip read ends where verification starts (the use case says so with its `verifying` event)
        let chipReadAt = Mutex<ContinuousClock.Instant?>(nil)
        // The read's image conversions: the report's face check converts the face once, and the bundle's face.jpg
        // and the result page's face reuse that conversion (the job keeps the memo and overwrites it when it forgets).
        let memo = DisplayImageMemo()
        let outcome = await DisplayImageMemo.$current.withValue(memo) { () async -> Result<VerifiedRead, ReadError> in
            do throws(ReadError) {
                return .success(
                    try await reader.readAndVerify(
                        trustStore: trust.withLock { $0 }, evidenceFolder: bundle,
                        progress: { event in
                            if event.phase == .verifying { chipReadAt.withLock { $0 = .now } }
                            job.progress(event)
                        }))
            } catch { return .failure(error) }
        }
        switch outcome {
        case .success(let verified): read = verified
        case .failure(let error):
            memo.forget()
            release()
            job.fail(Self.apiError(error))
            return
        }
        let verified = ContinuousClock.now
        let chipRead = chipReadAt.withLock { $0 } ?? verified
        guard !Task.isCancelled else { return memo.forget() }
        let (result, verification, report) = (read.result, read.verification, read.report)
        let document = result.document  // parsed once: the face and the document's other images
        if let root = config.evidenceDirectory, let bundle {
            do {
                try DisplayImageMemo.$current.withValue(memo) {
                    try Evidence.write(result, report: report, root: root, to: bundle)
                }
            } catch {
                memo.forget()
                release()
                job.fail(APIError(500, "evidence", "cannot write the evidence bundle"))
                return
            }
        }
        var extra: [String: [UInt8]] = [:]
        if let attach { extra = await attach(report, verification) }
        let face = document.faceImage.map { (bytes: $0.imageData, format: $0.format) }
        // as stored: a JPEG 2000 one is converted only if and when the result page is asked for
        let images = HTMLReport.documentImages(document)
        let reportJSON = CanonicalJSON.bytes(report)
        release()
        // the result instant: everything is computed and encoded, the outcome is published next
        let timing = ReadTiming(
            presented: presented, connected: connected, firstAPDU: clock.firstAPDU, chipRead: chipRead,
            verified: verified, result: .now, transportNanoseconds: result.statistics.nanoseconds)
        extra["timing"] = JSON.encode(timing.json)
        job.finish(
            report: reportJSON, verdict: verification.status.rawValue, face: face, images: images, extra: extra,
            memo: memo)
    }

    /// A failure while waiting for the card.
    static func apiError(waiting error: any Error) -> APIError {
        guard let t = error as? TransportError else { return APIError(502, "transport", "the reader failed") }
        switch t.kind {
        case .timeout, .noCard: return APIError(408, "timeout", "no document was presented in time")
        case .cancelled: return APIError(409, "cancelled", "the read was cancelled")
        case .noReader, .readerUnavailable:
            return APIError(503, "reader_unavailable", "the reader is gone: \(t.message)")
        default: return APIError(502, "transport", "reader/transport failure: \(t.message)")
        }
    }

    /// A failed read, by the read use case's one classification (`ReadError.failure`, which the CLI's exit statuses
    /// follow too: access control 4, the rest 3).
    static func apiError(_ error: ReadError) -> APIError {
        let failure = error.failure
        switch failure.kind {
        case .accessControl: return APIError(422, "access_control_failed", failure.message)
        case .cancelled: return APIError(409, "cancelled", failure.message)
        case .readerUnavailable: return APIError(503, "reader_unavailable", failure.message)
        case .cardRemoved: return APIError(410, "card_removed", failure.message)
        case .transport: return APIError(502, "transport", failure.message)
        case .chip: return APIError(502, "chip", failure.message)
        }
    }

    // MARK: - Readers

    private func monitorReaders() async {
        while !Task.isCancelled && !stopping.load(ordering: .sequentiallyConsistent) {
            do {
                for try await event in readers.events() {
                    if let frame = registry.apply(event) { terminal.send(frame) }
                }
            } catch {
                // pcscd went away (restarted, or no reader yet): forget what we knew and look again
                for frame in registry.reset() { terminal.send(frame) }
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    func readersJSON() -> [[String: Any]] {
        let running = busy.withLock { $0 }
        return registry.snapshot().map { r in
            var o: [String: Any] = ["name": r.name, "cardPresent": r.cardPresent, "busy": running[r.name] != nil]
            if let id = running[r.name] { o["read"] = id }
            if let p = r.profile { o["profile"] = p } else { o["profile"] = NSNull() }
            return o
        }
    }
}

extension String {
    func leftPadded(to n: Int = 2) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}

/// The readers the service knows, from the PC/SC event monitor.
final class ReaderRegistry: Sendable {
    struct Reader {
        var name: String
        var cardPresent: Bool
        var profile: String?
    }
    private let readers = Mutex<[String: Reader]>([:])

    func apply(_ e: PCSCEvent) -> [UInt8]? {
        readers.withLock { r -> [UInt8]? in
            switch e {
            case .readerAdded(let name):
                guard r[name] == nil else { return nil }
                r[name] = Reader(
                    name: name, cardPresent: false, profile: ReaderProfiles.builtIn.profile(forReader: name)?.id)
                return SSE.frame("reader", ["reader": name, "event": "added"])
            case .readerRemoved(let name):
                guard r.removeValue(forKey: name) != nil else { return nil }
                return SSE.frame("reader", ["reader": name, "event": "removed"])
            case .cardInserted(let name, _):
                r[name, default: Reader(name: name, cardPresent: false, profile: nil)].cardPresent = true
                return SSE.frame("card", ["reader": name, "present": true])
            case .cardRemoved(let name), .cardMute(let name):
                guard r[name]?.cardPresent == true else { return nil }
                r[name]?.cardPresent = false
                return SSE.frame("card", ["reader": name, "present": false])
            }
        }
    }

    func reset() -> [[UInt8]] {
        readers.withLock { r in
            let frames = r.keys.sorted().map { SSE.frame("reader", ["reader": $0, "event": "removed"]) }
            r.removeAll()
            return frames
        }
    }

    func snapshot() -> [Reader] { readers.withLock { $0.values.sorted { $0.name < $1.name } } }

    /// The readers the source lists now (at most 2 s of waiting, on the caller's connection thread).
    static func liveReaderNames(_ readers: any KioskReaders) -> [String] {
        final class Box: @unchecked Sendable { var names: [String] = [] }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            box.names = (try? await readers.readerNames()) ?? []
            done.signal()
        }
        return done.wait(timeout: .now() + 2) == .success ? box.names : []
    }

    /// The reader a read goes to: the exact name, else the only reader whose name contains the query; with
    /// no query, the only reader without a running read.
    func resolve(_ query: String?, busy: Set<String>, readers: any KioskReaders) throws(APIError) -> String {
        var names = snapshot().map(\.name)
        // the monitor may not have reported a reader yet (just started, just plugged in, pcscd restarted): ask pcscd
        if names.isEmpty || (query.map { q in !names.contains { $0.lowercased().contains(q.lowercased()) } } ?? false) {
            names = Array(Set(names).union(Self.liveReaderNames(readers))).sorted()
        }
        guard !names.isEmpty else { throw APIError(404, "no_reader", "no reader is connected") }
        guard let query else {
            let free = names.filter { !busy.contains($0) }
            if free.count == 1 { return free[0] }
            if free.isEmpty { throw APIError(409, "reader_busy", "every reader has a read running") }
            throw APIError(409, "ambiguous_reader", "several readers are free: name one (\"reader\")")
        }
        if names.contains(query) { return query }
        let hits = names.filter { $0.lowercased().contains(query.lowercased()) }
        if hits.count == 1 { return hits[0] }
        if hits.isEmpty { throw APIError(404, "unknown_reader", "no reader matches the \"reader\" given") }
        throw APIError(409, "ambiguous_reader", "the \"reader\" given matches several readers")
    }
}

/// The evidence bundle in `--evidence-dir`: `root` (created 0700 when missing) holds one bundle per read, each
/// written whole or not at all by `EvidenceBundle.write` (folder 0700, files 0600, the report included).
enum Evidence {
    static func write(_ result: ReadResult, report: ReadReport, root: URL, to dir: URL) throws {
        try FileManager.default.createDirectory(
            at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try EvidenceBundle.write(result, report: report, to: dir)
    }
}
