import ASN1TLV
import ISO7816

/// The dynamic authentication data template DO'7C' of GENERAL AUTHENTICATE (ISO/IEC 7816-4 §7.5.2;
/// ICAO 9303-11 §4.4.4.2 and §4.4.5 Table 4; §6.2.4.2 for Chip Authentication; BSI TR-03110-3 B.1–B.3):
/// 80 encrypted nonce / CA ephemeral key, 81 mapping data (IFD), 82 mapping data (IC), 83 ephemeral key (IFD),
/// 84 ephemeral key (IC), 85 T_IFD, 86 T_IC, 87/88 CARs, 8A encrypted chip authentication data (PACE-CAM).
public enum DynamicAuthenticationData {
    /// `7C L { tag L value }…` (an empty template `7C 00` when `objects` is empty).
    public static func encode(_ objects: [(tag: UInt8, value: [UInt8])]) -> [UInt8] {
        TLVWriter.encode(0x7C, objects.flatMap { TLVWriter.encode(UInt32($0.tag), $0.value) })
    }

    /// Reads a `7C` template into its data objects (first occurrence of each tag kept; order irrelevant).
    public static func decode(_ data: [UInt8], step: String) throws(AccessControlError) -> [UInt8: [UInt8]] {
        let node: TLVNode
        do {
            node = try TLVParser.parse(data, rules: .ber)
        } catch {
            throw AccessControlError(.malformedResponse, step: step, "dynamic authentication data: \(error)")
        }
        guard node.tag == 0x7C else {
            throw AccessControlError(
                .malformedResponse, step: step, "expected template '7C', found \(TLVTag.describe(node.tag))")
        }
        var out: [UInt8: [UInt8]] = [:]
        for c in node.children where c.tag <= 0xFF {
            if out[UInt8(c.tag)] == nil { out[UInt8(c.tag)] = c.valueBytes }
        }
        return out
    }

    /// Like `decode` but requires `tag` to be present and returns its value.
    public static func require(_ tag: UInt8, in objects: [UInt8: [UInt8]], step: String, what: String)
        throws(AccessControlError) -> [UInt8]
    {
        guard let v = objects[tag] else {
            throw AccessControlError(
                .malformedResponse, step: step, "the chip's answer lacks DO'\(Hex.encode([tag]))' (\(what))")
        }
        return v
    }
}

/// Sends one APDU and collects 61xx continuations (GET RESPONSE); status handling is the caller's.
typealias APDUSend = @Sendable (CommandAPDU) async throws -> ResponseAPDU

enum Exchange {
    /// Transmits, follows 61xx with GET RESPONSE, and returns the final response.
    static func transmit(_ send: APDUSend, _ command: CommandAPDU) async throws -> ResponseAPDU {
        try await ResponseChaining.collect(try await send(command), after: command, send: send)
    }

    /// Transmits and requires 9000 (or, when `acceptWarnings`, a 63Cx retry-counter warning).
    static func expectSuccess(
        _ send: APDUSend, _ command: CommandAPDU, step: String,
        wrongPasswordOn63: Bool = false, acceptRetryWarning: Bool = false
    ) async throws -> ResponseAPDU {
        let r = try await transmit(send, command)
        let sw = r.statusWord
        if sw.isSuccess { return r }
        if acceptRetryWarning && sw.sw1 == 0x63 && sw.sw2 & 0xF0 == 0xC0 && sw.sw2 & 0x0F > 0 { return r }
        if wrongPasswordOn63 && (sw.sw1 == 0x63 || sw == .securityStatusNotSatisfied) {
            throw AccessControlError(
                .wrongPassword, step: step,
                "the chip refused the password (wrong MRZ, CAN or PIN)", statusWord: sw)
        }
        throw AccessControlError(.chipRejected, step: step, "the chip answered \(sw.meaning)", statusWord: sw)
    }
}
