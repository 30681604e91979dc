import ISO7816
import Synchronization

/// Forwards to a transport and notes when the first command went out: the service's "card presented →
/// first APDU" figure (docs/performance.md, serve section).
final class FirstAPDUClock: CardTransport {
    let inner: any CardTransport
    private let first = Mutex<ContinuousClock.Instant?>(nil)

    init(_ inner: any CardTransport) { self.inner = inner }

    var firstAPDU: ContinuousClock.Instant? { first.withLock { $0 } }

    var name: String { inner.name }
    var capabilities: TransportCapabilities { get async { await inner.capabilities } }
    var atr: [UInt8] { get async throws { try await inner.atr } }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        first.withLock { if $0 == nil { $0 = .now } }
        return try await inner.transmit(command)
    }

    func reconnect(reset: Bool, timeout: Double) async throws {
        try await inner.reconnect(reset: reset, timeout: timeout)
    }
}

/// A read's own timing, reported in `GET /v1/reads/{id}` as `timing` (milliseconds).
struct ReadTiming {
    /// the wait for the card returned (pcscd reported it present)
    var presented: ContinuousClock.Instant
    /// connected to the card (SCardConnect and the reader's capabilities done)
    var connected: ContinuousClock.Instant?
    var firstAPDU: ContinuousClock.Instant?
    /// the chip read ended (the last response arrived and was processed)
    var chipRead: ContinuousClock.Instant?
    /// passive authentication and the other checks done
    var verified: ContinuousClock.Instant?
    var result: ContinuousClock.Instant?
    /// time spent inside transmit, as the read's transport statistics count it
    var transportNanoseconds: UInt64 = 0

    static func ms(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return (Double(s) * 1000 + Double(atto) / 1e15 * 1).rounded(toPlaces: 3)
    }

    var json: [String: Any] {
        var o: [String: Any] = ["transportMs": (Double(transportNanoseconds) / 1e6).rounded(toPlaces: 3)]
        if let f = firstAPDU { o["presentedToFirstAPDUMs"] = Self.ms(f - presented) }
        // where the time between presentation and result goes (the last three add up to presentedToResultMs)
        if let c = connected, let r = chipRead, let v = verified, let e = result {
            o["phasesMs"] = [
                "connect": Self.ms(c - presented), "chipRead": Self.ms(r - c), "verify": Self.ms(v - r),
                "report": Self.ms(e - v),
            ]
        }
        if let r = result {
            o["presentedToResultMs"] = Self.ms(r - presented)
            o["overheadMs"] = (Self.ms(r - presented) - Double(transportNanoseconds) / 1e6).rounded(toPlaces: 3)
        }
        return o
    }
}

extension Double {
    func rounded(toPlaces n: Int) -> Double {
        var p = 1.0
        for _ in 0..<n { p *= 10 }
        return (self * p).rounded() / p
    }
}
