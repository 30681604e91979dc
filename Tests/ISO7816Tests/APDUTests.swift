import ISO7816
import MRTDTestSupport
import Testing

@Suite struct APDUTests {
    @Test(arguments: [
        // case 1, 2, 3, 4 short
        ("00A40000", 1, 0, nil as Int?, false),
        ("00B0000000", 2, 0, 256, false),
        ("00B0000008", 2, 0, 8, false),
        ("00A4020C02011E", 3, 2, nil, false),
        ("00820000080102030405060708FF", 4, 8, 255, false),
        // extended
        ("00B0000000FFFF", 2, 0, 65535, true),
        ("00D600000000020203", 3, 2, nil, true),
        ("00B00000000000", 2, 0, 65536, true),
        ("00B00000000100", 2, 0, 256, true),
    ])
    func encodeAndParseRoundTrip(bytes: String, caseNumber: Int, lc: Int, ne: Int?, extended: Bool) throws {
        let apdu = try CommandAPDU(bytes: hex(bytes))
        #expect(apdu.caseNumber == caseNumber)
        #expect(apdu.data.count == lc)
        #expect(apdu.ne == ne)
        #expect(apdu.isExtended == extended)
        #expect(apdu.bytes == hex(bytes))
    }

    @Test func extendedCase4() throws {
        let data = [UInt8](repeating: 0x11, count: 300)
        let apdu = CommandAPDU(ins: 0x86, p1: 0, p2: 0, data: data, ne: 65536)
        #expect(apdu.isExtended)
        let b = apdu.bytes
        #expect(Array(b[4..<7]) == [0x00, 0x01, 0x2C])
        #expect(Array(b.suffix(2)) == [0x00, 0x00])
        #expect(try CommandAPDU(bytes: b).bytes == b)
        #expect(try CommandAPDU(bytes: b).data == data)
    }

    /// `encodedLength` is the length of `bytes` in every case, short, extended and forced extended, and
    /// the encoding parses back to the same command.
    @Test func encodedLengthMatchesEncoding() throws {
        for count in [0, 1, 2, 255, 256, 300, 65535] {
            for ne in [nil, 1, 255, 256, 257, 65535, 65536] as [Int?] {
                for forced in [false, true] {
                    let apdu = CommandAPDU(
                        cla: 0x0C, ins: 0xB0, p1: 1, p2: 2, data: [UInt8](repeating: 0xA5, count: count), ne: ne,
                        forceExtended: forced)
                    let bytes = apdu.bytes
                    #expect(
                        apdu.encodedLength == bytes.count, "data \(count) ne \(String(describing: ne)) forced \(forced)"
                    )
                    let back = try CommandAPDU(bytes: bytes)
                    #expect(back.data == apdu.data && back.ne == apdu.ne && back.header == apdu.header)
                }
            }
        }
    }

    @Test func shortNe256EncodesAs00() {
        #expect(CommandAPDU.readBinary(offset: 0, ne: 256).bytes == hex("00B0000000"))
        #expect(CommandAPDU.readBinary(offset: 0x1234, ne: 0xDF).bytes == hex("00B01234DF"))
    }

    @Test(arguments: [
        "00", "00A400000201", "00A40000020102FFFF", "00A4000000000201", "00A4000000000301", "00B000000012",
        "00B0000000" + "01",
    ])
    func malformedCommandsAreRejected(bytes: String) {
        #expect(throws: APDUError.self) { try CommandAPDU(bytes: hex(bytes)) }
    }

    @Test func builders() {
        #expect(CommandAPDU.selectApplication(MRTDApplication.lds1AID).bytes == hex("00A4040C07A0000002471001"))
        #expect(CommandAPDU.selectFile(0x011E).bytes == hex("00A4020C02011E"))
        #expect(CommandAPDU.readBinary(sfi: 0x1E, offset: 0, ne: 256).bytes == hex("00B09E0000"))
        #expect(
            CommandAPDU.readBinaryOdd(offset: 0x8000, ne: 223).bytes
                == hex("00B1000004540280 00DF".replacingOccurrences(of: " ", with: "")))
        #expect(CommandAPDU.getChallenge().bytes == hex("0084000008"))
        #expect(CommandAPDU.generalAuthenticate([0x7C, 0x00], chained: true).bytes == hex("10860000027C0000"))
    }

    @Test func responseParsing() throws {
        let r = try ResponseAPDU(bytes: hex("0102039000"))
        #expect(r.data == [1, 2, 3] && r.isSuccess)
        #expect(throws: APDUError.self) { try ResponseAPDU(bytes: [0x90]) }
        #expect(r.bytes == hex("0102039000"))
    }

    @Test(arguments: [
        (0x9000 as UInt16, "normal processing"),
        (0x6982, "security status not satisfied"),
        (0x6988, "incorrect secure messaging data objects"),
        (0x6A82, "file or application not found"),
        (0x6B00, "wrong parameters (offset outside the EF)"),
        (0x6282, "end of file reached before reading Ne bytes"),
        (0x6700, "wrong length"),
        (0x6C10, "wrong Le field; exact length is 16"),
        (0x63C2, "verification failed, 2 tries left"),
    ])
    func statusWordMeanings(sw: UInt16, meaning: String) {
        #expect(StatusWord(rawValue: sw).meaning == meaning)
    }

    @Test func statusWordClassification() {
        #expect(StatusWord(rawValue: 0x6282).isWarning)
        #expect(StatusWord(rawValue: 0x6C20).isWrongLe)
        #expect(StatusWord(rawValue: 0x6110).isMoreDataAvailable)
        #expect(!StatusWord(rawValue: 0x6982).isSuccess)
        #expect(StatusWord(rawValue: 0x6982).description == "6982 (security status not satisfied)")
    }
}

final class EchoCard: CardEmulator, @unchecked Sendable {
    let atr: [UInt8] = [0x3B, 0x00]
    var powered = false
    var resets = 0
    func powerOn() { powered = true }
    func powerOff() { powered = false }
    func reset() {
        resets += 1
        powered = true
    }
    func process(_ command: [UInt8]) -> [UInt8] { Array(command.dropFirst(4)) + [0x90, 0x00] }
}

@Suite struct LocalTransportTests {
    @Test func countsAndRemoval() async throws {
        let card = EchoCard()
        let t = LocalCardTransport(emulator: card)
        _ = try await t.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 16))
        #expect(t.statistics.apdus == 1 && t.statistics.bytesSent == 5 && t.statistics.bytesReceived == 3)
        t.removeCard(afterAPDUs: 1)
        _ = try await t.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 16))
        await #expect(throws: TransportError.self) { try await t.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 1)) }
        #expect(!card.powered && !t.isCardPresent)
        try await t.reconnect(reset: false, timeout: 1)
        #expect(card.powered && t.isCardPresent)
        _ = try await t.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 16))
        #expect(t.statistics.apdus == 3 && t.statistics.apdusByInstruction[0xB0] == 3)
    }

    @Test func removalWithoutReinsertTimesOut() async throws {
        let t = LocalCardTransport(emulator: EchoCard())
        t.removeCard(afterAPDUs: 0, reinsert: false)
        await #expect(throws: TransportError.self) { try await t.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 1)) }
        do {
            try await t.reconnect(reset: false, timeout: 0.1)
            Issue.record("reconnect succeeded")
        } catch let e as TransportError {
            #expect(e.kind == .timeout)
        }
    }
}
