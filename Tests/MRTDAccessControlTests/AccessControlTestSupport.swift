import ASN1TLV
import Foundation
import ISO7816
import MRTDCrypto
import MRTDTestSupport
import Synchronization

/// One published example loaded from TestVectors/ (values are hex unless read with `string`).
struct Vector: @unchecked Sendable {
    let name: String
    let values: [String: Any]

    init(_ name: String) throws {
        self.name = name
        values = try loadVectorFile(name)
    }

    func string(_ key: String) -> String {
        guard let s = values[key] as? String else { preconditionFailure("\(name): no string \(key)") }
        return s
    }

    func bytes(_ key: String) -> [UInt8] { hex(string(key)) }

    /// The `apdus` list as (command, response) pairs; a missing response becomes `fallback`.
    func apdus(_ key: String = "apdus", fallback: String = "9000") -> [(command: String, response: String)] {
        guard let list = values[key] as? [[String: Any]] else { preconditionFailure("\(name): no \(key)") }
        return list.map { ($0["command"] as! String, ($0["response"] as? String) ?? fallback) }
    }

    func nested(_ key: String) -> [[String: String]] {
        (values[key] as? [[String: Any]] ?? []).map { d in d.compactMapValues { $0 as? String } }
    }
}

/// A transport that answers each command with the next scripted response without checking the
/// command (a chip that follows the protocol whatever the terminal sends), recording the commands.
final class ResponderTransport: CardTransport {
    let name = "responder"
    private let responses: [[UInt8]]
    private let state = Mutex<(Int, [[UInt8]])>((0, []))

    init(_ responses: [String]) { self.responses = responses.map { hex($0) } }

    var capabilities: TransportCapabilities { .extended }
    var atr: [UInt8] { [0x3B, 0x00] }
    var commands: [[UInt8]] { state.withLock { $0.1 } }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        let r: [UInt8]? = state.withLock { s in
            s.1.append(command.bytes)
            guard s.0 < responses.count else { return nil }
            defer { s.0 += 1 }
            return responses[s.0]
        }
        guard let r else { throw TransportError(.protocolError, function: "transmit", "script exhausted") }
        return try ResponseAPDU(bytes: r)
    }

    func reconnect(reset: Bool, timeout: Double) async throws {}
}

/// Replaces the status word of an encoded response.
func withStatus(_ response: String, _ sw: String) -> String { String(response.dropLast(4)) + sw }
