import ASN1TLV
import CanonicalJSON
import Foundation
import ISO7816

/// Output helpers of the reader commands (`readers`, `watch`): stderr lines, PC/SC failures as command errors
/// (exit 3) with what an operator can do, hex and timestamps.
enum PCSCCommandOutput {
    static func error(_ command: String, _ message: String) {
        FileHandle.standardError.write(Data("emrtd \(command): \(message)\n".utf8))
    }

    /// A reader/transport failure as a command error (exit 3): the failing call, its meaning and what to do.
    static func cliError(_ failure: any Error) -> CLIError {
        if let t = failure as? TransportError {
            return CLIError(.transport, t.description + hint(t), status: .transport)
        }
        return CLIError(
            .transport, "PC/SC failed (\(PlainWords.reason("\(failure)", fallback: "no detail"))) — is pcscd running?",
            status: .transport)
    }

    /// What an operator can do about common failures.
    static func hint(_ e: TransportError) -> String {
        switch e.kind {
        case .readerUnavailable where e.message.contains("SCARD_E_NO_SERVICE"):
            return " — start it with `systemctl start pcscd.socket` (or check polkit rules: hardware/README.md)"
        case .noReader:
            return " — list readers with `emrtd readers`"
        case .sharingViolation:
            return " — another program holds the card; close it or use shared mode"
        default:
            return ""
        }
    }

    static func compactJSON<T: Encodable>(_ value: T) -> String {
        CanonicalJSON.string(value, .compact)
    }

    static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    /// ISO 8601 UTC timestamp with milliseconds.
    static func timestamp(_ date: Date = Date()) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }
}
