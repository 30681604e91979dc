public import ISO7816
public import MRTDCrypto

/// One exchange as seen through a secure channel, for progress and redacted traces: the plain
/// command header and lengths, never keys, SSC or command data.
public struct ChannelExchange: Sendable {
    public var plainCommand: CommandAPDU
    public var plainResponse: ResponseAPDU?
    public var protectedCommandLength: Int
    public var protectedResponseLength: Int
    public init(
        plainCommand: CommandAPDU, plainResponse: ResponseAPDU?, protectedCommandLength: Int,
        protectedResponseLength: Int
    ) {
        self.plainCommand = plainCommand
        self.plainResponse = plainResponse
        self.protectedCommandLength = protectedCommandLength
        self.protectedResponseLength = protectedResponseLength
    }
}

/// A transport plus the secure-messaging session that protects it: the actor that owns the session.
/// `transmit` protects the command, sends it and unprotects the answer. After a secure-messaging
/// failure the channel is dead; after a transport failure the session is considered lost too
/// (the chip drops it), so callers re-run access control.
///
/// Exchanges are strictly serialised (the SSC advances once per command and once per response),
/// even when several tasks call `transmit` concurrently across the actor's suspension points.
public actor SecureChannel {
    public let transport: any CardTransport
    private var session: SecureMessagingSession
    private var transportLost = false
    private var observer: (@Sendable (ChannelExchange) -> Void)?
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init(transport: any CardTransport, session: consuming SecureMessagingSession) {
        self.transport = transport
        self.session = session
    }

    /// Waits for the exchange in progress (only called when `busy`; the caller takes the free channel
    /// without a suspension point).
    private func waitForTurn() async {
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }

    /// Sends a plain command protected; returns the plain response (status word from DO'99').
    /// Throws `SecureMessagingError` (the session is then dead) or the transport's error
    /// (the channel is then dead as well).
    public func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        if busy { await waitForTurn() } else { busy = true }
        defer { release() }
        guard !transportLost else {
            throw SecureMessagingError(.sessionDead, "the secure-messaging session was lost with the transport")
        }
        let protected = try session.protect(command)
        let protectedLength = protected.encodedLength
        let rawResponse: ResponseAPDU
        do {
            // A chip that cannot send the protected response at once chains it ('61xx', ISO/IEC 7816-4 §5.3.4):
            // the parts are collected with plain GET RESPONSE and the whole protected response unwrapped once.
            let transport = self.transport
            let first = try await transport.transmit(protected)
            rawResponse = try await ResponseChaining.collect(first, after: protected) {
                try await transport.transmit($0)
            }
        } catch {
            transportLost = true
            observer?(
                ChannelExchange(
                    plainCommand: command, plainResponse: nil, protectedCommandLength: protectedLength,
                    protectedResponseLength: 0))
            throw error
        }
        let responseLength = rawResponse.data.count + 2
        do {
            let plain = try session.unprotect(rawResponse)
            observer?(
                ChannelExchange(
                    plainCommand: command, plainResponse: plain, protectedCommandLength: protectedLength,
                    protectedResponseLength: responseLength))
            return plain
        } catch {
            observer?(
                ChannelExchange(
                    plainCommand: command, plainResponse: nil, protectedCommandLength: protectedLength,
                    protectedResponseLength: responseLength))
            throw error
        }
    }

    /// Sends a command without secure messaging (e.g. before PACE-CAM / after a failure); rarely needed.
    /// Does not touch the session.
    public func transmitPlain(_ command: CommandAPDU) async throws -> ResponseAPDU {
        if busy { await waitForTurn() } else { busy = true }
        defer { release() }
        let response = try await transport.transmit(command)
        observer?(
            ChannelExchange(
                plainCommand: command, plainResponse: response,
                protectedCommandLength: command.encodedLength, protectedResponseLength: response.data.count + 2))
        return response
    }

    /// Replaces the session (Chip Authentication restarts SM with new keys and SSC 0); revives the channel.
    public func replaceSession(_ session: consuming SecureMessagingSession) {
        self.session = session
        transportLost = false
    }
    public var cipher: CipherAlgorithm { session.cipher }
    public var isDead: Bool { transportLost || session.isDead }
    /// Called after every exchange (for progress and redacted traces).
    public func setObserver(_ observer: (@Sendable (ChannelExchange) -> Void)?) {
        self.observer = observer
    }
}
