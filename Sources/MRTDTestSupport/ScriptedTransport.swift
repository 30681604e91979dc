import ASN1TLV
public import ISO7816
import Synchronization

/// A transport that plays a recorded exchange: each command must equal the next expected one
/// (byte for byte), and the recorded response is returned. A mismatch throws, naming the step.
public final class ScriptedTransport: CardTransport {
    public struct Step: Sendable {
        public var command: [UInt8]
        public var response: [UInt8]
        public init(command: [UInt8], response: [UInt8]) {
            self.command = command
            self.response = response
        }
    }

    public struct Mismatch: Error, CustomStringConvertible {
        public var index: Int
        public var expected: [UInt8]?
        public var actual: [UInt8]
        public var description: String {
            "step \(index): expected \(expected.map { Hex.encode($0) } ?? "<end of script>"), got \(Hex.encode(actual))"
        }
    }

    public let name = "scripted"
    private let steps: [Step]
    private let position = Mutex(0)
    private let caps: TransportCapabilities

    public init(_ steps: [Step], capabilities: TransportCapabilities = .extended) {
        self.steps = steps
        self.caps = capabilities
    }

    /// Convenience: pairs of hex strings (command, response).
    public convenience init(hexPairs: [(String, String)]) {
        self.init(hexPairs.map { Step(command: Hex.decode($0.0)!, response: Hex.decode($0.1)!) })
    }

    public var capabilities: TransportCapabilities { caps }
    public var atr: [UInt8] { [0x3B, 0x80, 0x80, 0x01, 0x01] }
    /// How many steps have been played.
    public var played: Int { position.withLock { $0 } }
    public var isFinished: Bool { played == steps.count }

    public func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        let bytes = command.bytes
        let step: Step? = position.withLock { p in
            guard p < steps.count else { return nil }
            defer { p += 1 }
            return steps[p]
        }
        let index = played - 1
        guard let step else { throw Mismatch(index: steps.count, expected: nil, actual: bytes) }
        guard step.command == bytes else { throw Mismatch(index: index, expected: step.command, actual: bytes) }
        return try ResponseAPDU(bytes: step.response)
    }

    public func reconnect(reset: Bool, timeout: Double) async throws {}
}
