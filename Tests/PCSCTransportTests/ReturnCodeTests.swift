import ISO7816
import PCSCTransport
import Testing

/// Every PC/SC return code maps to a typed error naming the call, with a readable message.
/// Codes the vpcd stack produces are also exercised end to end in PCSCIntegrationTests
/// (SCARD_E_NO_SMARTCARD, SCARD_E_UNKNOWN_READER, SCARD_E_SHARING_VIOLATION, SCARD_E_TIMEOUT,
/// SCARD_E_CANCELLED, card removal); this table covers all of them.
struct ReturnCodeTests {
    static let expected: [(UInt32, String, TransportError.Kind)] = [
        (0x8010_0001, "SCARD_F_INTERNAL_ERROR", .other),
        (0x8010_0002, "SCARD_E_CANCELLED", .cancelled),
        (0x8010_0003, "SCARD_E_INVALID_HANDLE", .readerUnavailable),
        (0x8010_0004, "SCARD_E_INVALID_PARAMETER", .other),
        (0x8010_0005, "SCARD_E_INVALID_TARGET", .other),
        (0x8010_0006, "SCARD_E_NO_MEMORY", .other),
        (0x8010_0007, "SCARD_F_WAITED_TOO_LONG", .timeout),
        (0x8010_0008, "SCARD_E_INSUFFICIENT_BUFFER", .protocolError),
        (0x8010_0009, "SCARD_E_UNKNOWN_READER", .noReader),
        (0x8010_000A, "SCARD_E_TIMEOUT", .timeout),
        (0x8010_000B, "SCARD_E_SHARING_VIOLATION", .sharingViolation),
        (0x8010_000C, "SCARD_E_NO_SMARTCARD", .noCard),
        (0x8010_000D, "SCARD_E_UNKNOWN_CARD", .other),
        (0x8010_000E, "SCARD_E_CANT_DISPOSE", .other),
        (0x8010_000F, "SCARD_E_PROTO_MISMATCH", .protocolError),
        (0x8010_0010, "SCARD_E_NOT_READY", .readerUnavailable),
        (0x8010_0011, "SCARD_E_INVALID_VALUE", .other),
        (0x8010_0012, "SCARD_E_SYSTEM_CANCELLED", .cancelled),
        (0x8010_0013, "SCARD_F_COMM_ERROR", .protocolError),
        (0x8010_0014, "SCARD_F_UNKNOWN_ERROR", .other),
        (0x8010_0015, "SCARD_E_INVALID_ATR", .protocolError),
        (0x8010_0016, "SCARD_E_NOT_TRANSACTED", .protocolError),
        (0x8010_0017, "SCARD_E_READER_UNAVAILABLE", .readerUnavailable),
        (0x8010_0018, "SCARD_P_SHUTDOWN", .readerUnavailable),
        (0x8010_0019, "SCARD_E_PCI_TOO_SMALL", .protocolError),
        (0x8010_001A, "SCARD_E_READER_UNSUPPORTED", .readerUnavailable),
        (0x8010_001B, "SCARD_E_DUPLICATE_READER", .readerUnavailable),
        (0x8010_001C, "SCARD_E_CARD_UNSUPPORTED", .protocolError),
        (0x8010_001D, "SCARD_E_NO_SERVICE", .readerUnavailable),
        (0x8010_001E, "SCARD_E_SERVICE_STOPPED", .readerUnavailable),
        (0x8010_001F, "SCARD_E_UNSUPPORTED_FEATURE", .other),
        (0x8010_0020, "SCARD_E_ICC_INSTALLATION", .other),
        (0x8010_0021, "SCARD_E_ICC_CREATEORDER", .other),
        (0x8010_0023, "SCARD_E_DIR_NOT_FOUND", .other),
        (0x8010_0024, "SCARD_E_FILE_NOT_FOUND", .other),
        (0x8010_0025, "SCARD_E_NO_DIR", .other),
        (0x8010_0026, "SCARD_E_NO_FILE", .other),
        (0x8010_0027, "SCARD_E_NO_ACCESS", .other),
        (0x8010_0028, "SCARD_E_WRITE_TOO_MANY", .other),
        (0x8010_0029, "SCARD_E_BAD_SEEK", .other),
        (0x8010_002A, "SCARD_E_INVALID_CHV", .other),
        (0x8010_002B, "SCARD_E_UNKNOWN_RES_MNG", .other),
        (0x8010_002C, "SCARD_E_NO_SUCH_CERTIFICATE", .other),
        (0x8010_002D, "SCARD_E_CERTIFICATE_UNAVAILABLE", .other),
        (0x8010_002E, "SCARD_E_NO_READERS_AVAILABLE", .noReader),
        (0x8010_002F, "SCARD_E_COMM_DATA_LOST", .protocolError),
        (0x8010_0030, "SCARD_E_NO_KEY_CONTAINER", .other),
        (0x8010_0031, "SCARD_E_SERVER_TOO_BUSY", .readerUnavailable),
        (0x8010_0065, "SCARD_W_UNSUPPORTED_CARD", .protocolError),
        (0x8010_0066, "SCARD_W_UNRESPONSIVE_CARD", .protocolError),
        (0x8010_0067, "SCARD_W_UNPOWERED_CARD", .cardReset),
        (0x8010_0068, "SCARD_W_RESET_CARD", .cardReset),
        (0x8010_0069, "SCARD_W_REMOVED_CARD", .cardRemoved),
        (0x8010_006A, "SCARD_W_SECURITY_VIOLATION", .other),
        (0x8010_006B, "SCARD_W_WRONG_CHV", .other),
        (0x8010_006C, "SCARD_W_CHV_BLOCKED", .other),
        (0x8010_006D, "SCARD_W_EOF", .other),
        (0x8010_006E, "SCARD_W_CANCELLED_BY_USER", .cancelled),
        (0x8010_006F, "SCARD_W_CARD_NOT_AUTHENTICATED", .other),
    ]

    @Test(
        "each pcsclite.h error code maps to its kind, names the call and says what happened",
        arguments: expected)
    func mapping(_ row: (UInt32, String, TransportError.Kind)) throws {
        let (code, symbol, kind) = row
        let rc = PCSCReturnCode(code)
        #expect(rc.symbol == symbol)
        #expect(rc.kind == kind)
        #expect(!rc.isSuccess)
        let error = rc.error(function: "SCardTransmit")
        #expect(error.kind == kind)
        #expect(error.function == "SCardTransmit")
        #expect(error.message.contains(symbol))
        #expect(error.message.contains(String(format: "0x%08X", code)))
        #expect(error.description.hasPrefix("SCardTransmit: "))
        #expect(error.message.count > symbol.count + 20, "a meaning in words, not just the symbol")
        #expect(throws: TransportError.self) { try rc.check("SCardTransmit") }
    }

    @Test("the table covers every code pcsc-lite defines, and nothing is left out of the test")
    func coverage() {
        let tested = Set(Self.expected.map(\.0)).union([0])
        #expect(Set(PCSCReturnCode.allKnown.map(\.rawValue)) == tested)
    }

    @Test("LONG is 8 bytes on 64-bit Linux: a sign-extended return value maps the same")
    func signExtended() {
        let asLong = Int(Int32(bitPattern: 0x8010_0069))  // what a 32-bit LONG would sign-extend to
        #expect(PCSCReturnCode(returned: asLong) == .removedCard)
        #expect(PCSCReturnCode(returned: Int(0x8010_0069)) == .removedCard)
    }

    @Test("success passes; unknown codes are .other with their hex value")
    func successAndUnknown() throws {
        try PCSCReturnCode(returned: 0).check("SCardConnect")
        let unknown = PCSCReturnCode(0x8010_0099)
        #expect(unknown.symbol == nil)
        #expect(unknown.kind == .other)
        #expect(unknown.error(function: "SCardControl").message.contains("0x80100099"))
    }

    @Test("removed/reset cards are recoverable by re-presenting; a missing reader is not")
    func recoverability() {
        #expect(PCSCReturnCode.removedCard.error(function: "f").isRecoverableByRepresenting)
        #expect(PCSCReturnCode.resetCard.error(function: "f").isRecoverableByRepresenting)
        #expect(PCSCReturnCode.noSmartcard.error(function: "f").isRecoverableByRepresenting)
        #expect(!PCSCReturnCode.unknownReader.error(function: "f").isRecoverableByRepresenting)
        #expect(!PCSCReturnCode.noService.error(function: "f").isRecoverableByRepresenting)
        #expect(!PCSCReturnCode.sharingViolation.error(function: "f").isRecoverableByRepresenting)
    }
}
