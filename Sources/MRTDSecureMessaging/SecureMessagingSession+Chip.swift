import ASN1TLV
public import ISO7816
import MRTDCrypto

/// The chip side of a session (the virtual chip): `unprotectCommand` a reader's command, `protectResponse`.
extension SecureMessagingSession {

    /// Chip side: increments the SSC, verifies and unwraps a protected command.
    public mutating func unprotectCommand(_ command: CommandAPDU) throws(SecureMessagingError) -> CommandAPDU {
        try guarded { (s) throws(SecureMessagingError) in try s.unprotectIncoming(command) }
    }

    private mutating func unprotectIncoming(_ command: CommandAPDU) throws(SecureMessagingError) -> CommandAPDU {
        guard command.isSecureMessaging else {
            throw fail(.malformedResponse, "command without secure messaging (CLA \(Hex.encode([command.cla])))")
        }
        let bytes = command.data
        let opened = try withPaddedHeader(command.cla, command.ins, command.p1, command.p2) {
            (header) throws(SecureMessagingError) in
            try open(bytes, header: header, other: 0x97, in: "command")
        }
        var ne: Int?
        if let le = opened.other {
            guard let value = Self.decodeLe(bytes[le]) else {
                throw fail(.malformedResponse, "DO'97' of \(le.count) bytes")
            }
            ne = value
        }
        guard opened.plain.count <= 65535 else {
            throw fail(.commandTooLong, "plain data of \(opened.plain.count) bytes")
        }
        lastCommandINS = command.ins
        return CommandAPDU(
            cla: command.cla & ~0x0C, ins: command.ins, p1: command.p1, p2: command.p2, data: opened.plain, ne: ne)
    }

    /// Chip side: increments the SSC and wraps a response (DO'87' — or DO'85' after an odd-INS
    /// command — DO'99', DO'8E'); the outer status word repeats the plain one.
    public mutating func protectResponse(_ response: ResponseAPDU) throws(SecureMessagingError) -> ResponseAPDU {
        try guarded { (s) throws(SecureMessagingError) in try s.protectOutgoing(response) }
    }

    private mutating func protectOutgoing(_ response: ResponseAPDU) throws(SecureMessagingError) -> ResponseAPDU {
        let sw = response.statusWord
        let data = try protectedField(
            response.data, odd: lastCommandINS & 1 == 1, plainTag: 0x99, (sw.sw1, sw.sw2, 2), header: nil)
        return ResponseAPDU(data: data, statusWord: response.statusWord)
    }

    /// DO'97' content back to Ne: one byte ('00' = 256) or two ('0000' = 65536).
    static func decodeLe(_ le: ArraySlice<UInt8>) -> Int? {
        switch le.count {
        case 1: return le.first! == 0 ? 256 : Int(le.first!)
        case 2:
            let v = Int(le[le.startIndex]) << 8 | Int(le[le.startIndex + 1])
            return v == 0 ? 65536 : v
        default: return nil
        }
    }
}
