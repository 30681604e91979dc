/// Response chaining (ISO/IEC 7816-4 §5.3.4 and §7.6.1): a card that cannot send a whole response at
/// once answers '61xx' ("xx more bytes available"), and the host collects the rest with GET RESPONSE
/// (Le = xx, '00' meaning 256) until a status word other than '61xx' ends it. The data of every part are
/// concatenated; the final status word is the response's.
///
/// Under secure messaging the chaining happens below secure messaging: the parts concatenate to the one
/// protected response (DO'87'/'99'/'8E'), which is then unwrapped and its MAC verified once; GET RESPONSE
/// itself is sent plain and advances no send sequence counter (ICAO 9303-11 §9.8 protects the command
/// and its response, not the transport's chaining).
public enum ResponseChaining {
    /// The most GET RESPONSE commands one response may take whatever its parts hold: 65 536 data bytes of an
    /// extended response plus the secure-messaging framing fill at most 258 full parts of 256 bytes.
    public static let maximumParts = 260
    /// Beyond `maximumParts`, a response goes on only while its parts average at least this many bytes: a chip
    /// with a small buffer (seen answering 60 bytes per GET RESPONSE) is followed to the end of an extended
    /// response, while one that trickles a byte at a time stops after `maximumParts`. With `maximumBytes`, one
    /// response costs at most 2 050 GET RESPONSE commands.
    public static let minimumAveragePartBytes = 32
    /// The most data one chained response may bring: an extended response (65 536) plus secure-messaging
    /// framing (DO'87' header, padding, DO'99', DO'8E': under 64 bytes).
    public static let maximumBytes = 65_536 + 64

    /// Whether a chained response that has brought `bytes` data bytes may take GET RESPONSE number `part` (the
    /// bounds above; the one rule for every place that collects '61xx', also the T=0 transport's).
    public static func mayContinue(part: Int, bytes: Int) -> Bool {
        (part <= maximumParts || bytes >= part * minimumAveragePartBytes) && bytes <= maximumBytes
    }

    /// Collects the rest of `first` with GET RESPONSE through `send` while it says '61xx'.
    /// `command` is the command `first` answers (its CLA's logical-channel bits are kept).
    /// Throws `TransportError(.protocolError)` when the card keeps chaining beyond the limits above.
    public static func collect(
        _ first: ResponseAPDU, after command: CommandAPDU,
        send: (CommandAPDU) async throws -> ResponseAPDU
    ) async throws -> ResponseAPDU {
        guard first.statusWord.isMoreDataAvailable else { return first }
        var data = first.data
        var response = first
        var parts = 0
        while response.statusWord.isMoreDataAvailable {
            parts += 1
            guard mayContinue(part: parts, bytes: data.count) else {
                throw TransportError(
                    .protocolError, function: "GET RESPONSE",
                    "the card kept answering 61xx (more than \(maximumParts) parts of under \(minimumAveragePartBytes) bytes on average, or more than \(maximumBytes) bytes)"
                )
            }
            let sw2 = Int(response.statusWord.sw2)
            var getResponse = CommandAPDU.getResponse(ne: sw2 == 0 ? 256 : sw2)
            getResponse.cla = command.cla & 0x03  // keep the logical channel, drop SM and chaining bits
            response = try await send(getResponse)
            data += response.data
        }
        guard data.count <= maximumBytes else {
            throw TransportError(
                .protocolError, function: "GET RESPONSE", "the chained response exceeds \(maximumBytes) bytes")
        }
        return ResponseAPDU(data: data, statusWord: response.statusWord)
    }
}

extension CardTransport {
    /// `transmit`, then GET RESPONSE while the card answers '61xx' (`ResponseChaining`).
    public func transmitCollectingChainedResponse(_ command: CommandAPDU) async throws -> ResponseAPDU {
        let first = try await transmit(command)
        return try await ResponseChaining.collect(first, after: command) { try await transmit($0) }
    }
}
