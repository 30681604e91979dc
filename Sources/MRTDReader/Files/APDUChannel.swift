public import ISO7816
public import MRTDSecureMessaging

/// Where the reader sends a plain command: straight to the transport (before access control) or through
/// the secure channel (after). Both report link failures as `TransportError` and secure-messaging
/// failures as `SecureMessagingError`. Both collect a response the chip chains with '61xx' (`ResponseChaining`).
public enum APDUChannel: Sendable {
    case plain(any CardTransport)
    case secure(SecureChannel)

    public func send(_ command: CommandAPDU) async throws -> ResponseAPDU {
        switch self {
        case .plain(let t): return try await t.transmitCollectingChainedResponse(command)
        case .secure(let c): return try await c.transmit(command)
        }
    }
}
