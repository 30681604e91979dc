import Dispatch
import Synchronization

/// An in-process `CardTransport` over a `CardEmulator` (the virtual chip): no reader, no PC/SC.
///
/// It keeps statistics and can simulate a card pulled off the reader: `removeCard(afterAPDUs:)`
/// makes the n-th following transmit fail with `.cardRemoved` (the chip is powered off), and
/// `reconnect` then powers it on again, as a person putting the passport back would.
public final class LocalCardTransport: CardTransport {
    public let name: String
    private let emulator: any CardEmulator
    private let caps: TransportCapabilities
    /// How long the chip may take to answer one command (seconds), as a reader's frame waiting time
    /// bounds it; nil = no limit. A later answer is discarded and the transmit fails with `.timeout`.
    public let responseTimeout: Double?

    private struct State {
        var statistics = TransportStatistics()
        var present = true
        var failAfter: Int? = nil
        var reinsertOnReconnect = true
    }
    private let state = Mutex(State())

    public init(
        emulator: any CardEmulator, name: String = "virtual chip",
        capabilities: TransportCapabilities = .extended, responseTimeout: Double? = nil
    ) {
        self.emulator = emulator
        self.name = name
        self.caps = capabilities
        self.responseTimeout = responseTimeout
        emulator.powerOn()
    }

    public var capabilities: TransportCapabilities { caps }

    public var atr: [UInt8] {
        get throws {
            guard state.withLock({ $0.present }) else {
                throw TransportError(.noCard, function: "atr", "no card in the field")
            }
            return emulator.atr
        }
    }

    public var statistics: TransportStatistics { state.withLock { $0.statistics } }

    public func resetStatistics() { state.withLock { $0.statistics = TransportStatistics() } }

    /// After `n` more successful APDUs, the next transmit finds the card gone.
    /// `reinsert`: whether a later `reconnect` finds it again.
    public func removeCard(afterAPDUs n: Int, reinsert: Bool = true) {
        state.withLock {
            $0.failAfter = n
            $0.reinsertOnReconnect = reinsert
        }
    }

    /// Whether the card is in the field now.
    public var isCardPresent: Bool { state.withLock { $0.present } }

    public func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        let cmd = command.bytes
        let removed: Bool = state.withLock { s in
            if !s.present { return true }
            if let n = s.failAfter {
                if n <= 0 {
                    s.present = false
                    s.failAfter = nil
                    return true
                }
                s.failAfter = n - 1
            }
            return false
        }
        if removed {
            emulator.powerOff()
            throw TransportError(.cardRemoved, function: "transmit", "the card was removed from the reader")
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let resp = emulator.process(cmd)
        let ns = DispatchTime.now().uptimeNanoseconds &- start
        state.withLock { $0.statistics.record(command: cmd, response: resp, ins: command.ins, nanoseconds: ns) }
        if let responseTimeout, Double(ns) / 1e9 > responseTimeout {
            throw TransportError(.timeout, function: "transmit", "the card did not answer within \(responseTimeout) s")
        }
        do {
            return try ResponseAPDU(bytes: resp)
        } catch {
            throw TransportError(.protocolError, function: "transmit", "the card answered without a status word")
        }
    }

    public func reconnect(reset: Bool, timeout: Double) async throws {
        let (ok, wasPresent): (Bool, Bool) = state.withLock { s in
            if !s.present && !s.reinsertOnReconnect { return (false, false) }
            let was = s.present
            s.present = true
            return (true, was)
        }
        guard ok else { throw TransportError(.timeout, function: "reconnect", "no card presented within \(timeout) s") }
        if reset { emulator.reset() } else if !wasPresent { emulator.powerOn() }
    }
}
