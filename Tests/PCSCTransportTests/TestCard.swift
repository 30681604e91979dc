import ISO7816
import Synchronization

/// A small scripted card for the transport tests (not an eMRTD):
/// - INS 'EE' echo: answers the command data (or, with Ne, the first Ne bytes of it) || 9000;
/// - INS 'E2' fill: answers Ne bytes 00 01 02 … || 9000 (6700 without Le) — long responses;
/// - INS 'E4' T=0 more-data: keeps `pending` bytes and answers '61xx'; GET RESPONSE ('C0')
///   hands them out Le bytes at a time, with '61xx' while more remain;
/// - INS 'E6' wrong-Le: answers '6C08' unless Le = 8, then 8 bytes || 9000;
/// - anything else: '6D00'.
final class TestCard: CardEmulator {
    /// T=1 only ATR (ISO/IEC 7816-3: TD1 '80' → T=0 … TD2 '01' → T=1; PC/SC part 3 contactless form).
    static let atrT1: [UInt8] = [0x3B, 0x80, 0x80, 0x01, 0x01]
    /// T=0 only ATR: no interface bytes, two historical bytes.
    static let atrT0: [UInt8] = [0x3B, 0x02, 0x14, 0x50]

    let atr: [UInt8]
    let pendingLength: Int

    struct State {
        var pending: [UInt8] = []
        var powerOns = 0
        var resets = 0
        var commands: [[UInt8]] = []
    }
    let state = Mutex(State())

    init(atr: [UInt8] = TestCard.atrT1, pendingLength: Int = 300) {
        self.atr = atr
        self.pendingLength = pendingLength
    }

    func powerOn() {
        state.withLock {
            $0.powerOns += 1
            $0.pending = []
        }
    }
    func powerOff() { state.withLock { $0.pending = [] } }
    func reset() {
        state.withLock {
            $0.resets += 1
            $0.pending = []
        }
    }

    var commands: [[UInt8]] { state.withLock { $0.commands } }
    var resets: Int { state.withLock { $0.resets } }

    static func fill(_ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0) } }

    func process(_ command: [UInt8]) -> [UInt8] {
        state.withLock { $0.commands.append(command) }
        guard let c = try? CommandAPDU(bytes: command) else { return [0x67, 0x00] }
        switch c.ins {
        case 0xEE:
            let out = c.ne.map { Array(c.data.prefix($0)) } ?? c.data
            return out + [0x90, 0x00]
        case 0xE2:
            guard let ne = c.ne else { return [0x67, 0x00] }
            return Self.fill(ne) + [0x90, 0x00]
        case 0xE4:
            let n = pendingLength
            state.withLock { $0.pending = Self.fill(n) }
            return [0x61, UInt8(min(n, 256) & 0xFF)]
        case 0xC0:
            return state.withLock { s in
                let le = c.ne ?? 256
                let part = Array(s.pending.prefix(le))
                s.pending.removeFirst(part.count)
                if s.pending.isEmpty { return part + [0x90, 0x00] }
                return part + [0x61, UInt8(min(s.pending.count, 256) & 0xFF)]
            }
        case 0xE6:
            guard c.ne == 8 else { return [0x6C, 0x08] }
            return Self.fill(8) + [0x90, 0x00]
        default:
            return [0x6D, 0x00]
        }
    }
}
