public import ISO7816
public import MRTDAccessControl
import MRTDDocument

/// Why a read ended without a result. Each case keeps what the read had so far.
public enum ReadError: Error, Sendable, CustomStringConvertible {
    /// The reader or the card failed and the card was not presented again in time (exit status 3).
    case transport(TransportError, resumptions: Int)
    /// Access control failed: wrong MRZ/CAN, or the chip refused (exit status 4).
    case accessControl(AccessControlError)
    /// The chip answered in a way the reader cannot continue from (malformed file, unexpected status).
    case chip(String)

    public var description: String {
        switch self {
        case .transport(let e, let n):
            return "reader/transport failure: \(e.message)"
                + (n > 0 ? " (after \(n) resumption\(n == 1 ? "" : "s"))" : "")
        case .accessControl(let e): return "access control failed at \(e.step): \(e.reason)"
        case .chip(let s): return "chip error: \(s)"
        }
    }
}
