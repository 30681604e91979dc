public import ISO7816
public import PCSCTransport

/// Where the service's readers and documents come from. `PCSCReaders` (pcscd and the USB readers behind it) is what
/// `emrtd serve` uses; the same service runs over any other source — the tests give it virtual chips in process, so
/// the whole service is tested without pcscd, as `DocumentReader` is.
public protocol KioskReaders: Sendable {
    /// Reader and card events, starting with the readers (and documents) there now. The stream ends or throws when the
    /// source is lost (pcscd restarted); the service then forgets what it knew and asks again.
    func events() -> AsyncThrowingStream<PCSCEvent, any Error>
    /// The readers there now (asked when a read names a reader the events have not reported yet).
    func readerNames() async throws -> [String]
    /// Waits up to `timeout` seconds for a document on `reader` and connects to it. Throws `TransportError`
    /// (`.timeout`, `.noReader`, `.cancelled`, …) when none came or the reader is gone.
    func connectWhenPresented(reader: String, timeout: Double) async throws -> KioskCardSession
}

/// A document on a reader, connected.
public struct KioskCardSession: Sendable {
    /// The card channel the read goes through.
    public var transport: any CardTransport
    /// When the document was seen on the reader (the service's timing starts there).
    public var presented: ContinuousClock.Instant
    /// Ends the card session (disconnects, resetting the card).
    public var end: @Sendable () async -> Void

    public init(
        transport: any CardTransport, presented: ContinuousClock.Instant, end: @escaping @Sendable () async -> Void
    ) {
        self.transport = transport
        self.presented = presented
        self.end = end
    }
}

/// The readers pcscd knows: what `emrtd serve` uses.
public struct PCSCReaders: KioskReaders {
    public init() {}

    public func events() -> AsyncThrowingStream<PCSCEvent, any Error> { PCSCContext.events(includeInitialState: true) }

    public func readerNames() async throws -> [String] { try await PCSCContext.establish().readerNames() }

    public func connectWhenPresented(reader: String, timeout: Double) async throws -> KioskCardSession {
        // the moment the card is reported present is noted (serve-mode timing); the connection then goes through
        // connectWhenPresented, which keeps waiting through a flicker (present, gone, present) until the deadline
        let waitStarted = ContinuousClock.now
        let context = try await PCSCContext.establish()
        _ = try await context.waitForCard(reader: reader, timeout: timeout)
        let presented = ContinuousClock.now
        let left = max(1, timeout - Double((presented - waitStarted).components.seconds))
        // the card is there: connect at once; only when that fails (the card flickered away, pcscd restarted) does
        // the patient path take over, with its own context and wait
        let transport: PCSCCardTransport
        if let direct = try? await PCSCCardTransport.connect(reader: reader) {
            transport = direct
        } else {
            transport = try await PCSCCardTransport.connectWhenPresented(readerQuery: reader, timeout: left)
        }
        return KioskCardSession(transport: transport, presented: presented) {
            _ = try? await transport.disconnect(resetCard: true)
        }
    }
}
