import ASN1TLV
public import ISO7816
import MRTDCrypto

/// The reader side of a session: `protect` a command, `unprotect` the chip's response.
extension SecureMessagingSession {

    /// Reader side: increments the SSC and wraps the command (DO'87'/'85', DO'97', DO'8E').
    /// The protected command uses extended length when the plain one does (data > 255 bytes,
    /// Ne > 256 or forced) or when the protected data field exceeds 255 bytes; its Le is '00'
    /// ('0000' when extended).
    public mutating func protect(_ command: CommandAPDU) throws(SecureMessagingError) -> CommandAPDU {
        try guarded { (s) throws(SecureMessagingError) in try s.protectCommand(command) }
    }

    private mutating func protectCommand(_ command: CommandAPDU) throws(SecureMessagingError) -> CommandAPDU {
        let cla = command.cla | 0x0C
        let data = try protectedField(
            command.data, odd: command.ins & 1 == 1, plainTag: 0x97,
            command.ne.map { Self.leBytes($0, extended: command.isExtended) },
            header: (cla, command.ins, command.p1, command.p2))
        let extended = command.isExtended || data.count > 255
        return CommandAPDU(
            cla: cla, ins: command.ins, p1: command.p1, p2: command.p2, data: data,
            ne: extended ? 65536 : 256, forceExtended: extended)
    }

    /// DO'97' content: Le as the unprotected command encodes it — one byte for a short command
    /// ('00' = 256), two bytes for an extended one ('0000' = 65536).
    private static func leBytes(_ ne: Int, extended: Bool) -> (first: UInt8, second: UInt8, count: Int) {
        if ne <= 256 && !extended { return (UInt8(ne & 0xFF), 0, 1) }
        return ne == 65536 ? (0, 0, 2) : (UInt8(ne >> 8), UInt8(ne & 0xFF), 2)
    }

    /// Reader side: increments the SSC, verifies DO'8E' in constant time before decrypting, checks DO'99'
    /// and returns the plain response with the protected status word.
    public mutating func unprotect(_ response: ResponseAPDU) throws(SecureMessagingError) -> ResponseAPDU {
        try guarded { (s) throws(SecureMessagingError) in try s.unprotectResponse(response) }
    }

    private mutating func unprotectResponse(_ response: ResponseAPDU) throws(SecureMessagingError) -> ResponseAPDU {
        if response.data.isEmpty {
            if response.statusWord.isSuccess {
                throw fail(
                    .malformedResponse, "response without secure-messaging data objects",
                    statusWord: response.statusWord)
            }
            throw fail(
                .chipRejectedSecureMessaging,
                "chip answered \(response.statusWord) without secure messaging", statusWord: response.statusWord)
        }
        let bytes = response.data
        let opened = try open(bytes, header: UnsafeRawBufferPointer(start: nil, count: 0), other: 0x99, in: "response")
        guard let status = opened.other else {
            throw fail(.malformedResponse, "DO'99' (processing status) missing")
        }
        guard status.count == 2 else { throw fail(.malformedResponse, "DO'99' of \(status.count) bytes") }
        return ResponseAPDU(
            data: opened.plain, statusWord: StatusWord(bytes[status.lowerBound], bytes[status.lowerBound + 1]))
    }
}
