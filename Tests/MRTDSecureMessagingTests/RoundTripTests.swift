import ISO7816
import MRTDCrypto
import MRTDSecureMessaging
import MRTDTestSupport
import Synchronization
import Testing

private func randomKeys(_ cipher: CipherAlgorithm) -> SessionKeys {
    SessionKeys.derive(sharedSecret: SystemRandom().randomBytes(count: 32), cipher: cipher)
}

/// Reader ↔ chip-side round trips, length rules, failure handling and the SecureChannel actor.
@Suite struct RoundTripTests {
    static let commands: [CommandAPDU] = [
        CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [0x01, 0x1E]),  // case 3
        CommandAPDU(ins: 0xB0, p1: 0x00, p2: 0x00, ne: 4),  // case 2 short
        CommandAPDU(ins: 0xB0, p1: 0x00, p2: 0x00, ne: 256),  // Le '00'
        CommandAPDU(ins: 0xB0, p1: 0x00, p2: 0x00, ne: 1000),  // extended Le
        CommandAPDU(ins: 0xB0, p1: 0x00, p2: 0x00, ne: 65536),  // extended Le '0000'
        CommandAPDU(ins: 0xB1, p1: 0x01, p2: 0x01, data: [0x54, 0x02, 0x7F, 0xF0], ne: 256),  // odd INS → DO'85'
        CommandAPDU(ins: 0x88, p1: 0x00, p2: 0x00, data: [UInt8](repeating: 7, count: 8), ne: 256),
        CommandAPDU(ins: 0xD6, p1: 0x00, p2: 0x00, data: [UInt8](repeating: 0xAB, count: 300)),  // needs extended
        CommandAPDU(cla: 0x10, ins: 0x86, p1: 0x00, p2: 0x00, data: [0x7C, 0x00], ne: 256),  // chained
        CommandAPDU(ins: 0x84, p1: 0x00, p2: 0x00),  // case 1
    ]

    @Test(arguments: CipherAlgorithm.allCases)
    func readerChipRoundTrip(_ cipher: CipherAlgorithm) throws {
        let k = randomKeys(cipher)
        var reader = SecureMessagingSession(keys: k)
        var chip = SecureMessagingSession(keys: k)
        for (i, command) in Self.commands.enumerated() {
            let protected = try reader.protect(command)
            #expect(protected.isSecureMessaging)
            #expect(protected.cla & 0x10 == command.cla & 0x10)
            #expect(protected.isExtended == (command.isExtended || protected.data.count > 255))
            #expect(protected.ne == (protected.isExtended ? 65536 : 256))
            // the encoded APDU parses back unchanged (the chip sees the bytes)
            let onTheWire = try CommandAPDU(bytes: protected.bytes)
            let unwrapped = try chip.unprotectCommand(onTheWire)
            #expect(unwrapped.bytes == command.bytes)
            #expect(unwrapped.ne == command.ne)
            let plainResponse = ResponseAPDU(
                data: [UInt8](repeating: UInt8(i), count: i * 37), sw: i == 3 ? 0x6282 : 0x9000)
            let wrapped = try chip.protectResponse(plainResponse)
            if command.ins & 1 == 1 && !plainResponse.data.isEmpty { #expect(wrapped.data.first == 0x85) }
            let back = try reader.unprotect(ResponseAPDU(bytes: wrapped.bytes))
            #expect(back == plainResponse)
            #expect(reader.sendSequenceCounter == chip.sendSequenceCounter)
        }
        #expect(reader.sendSequenceCounter.last == UInt8(2 * Self.commands.count))
    }

    /// DO'97' carries Le as the plain command encodes it: one byte when short ('00' = 256), two when extended.
    @Test func leDataObjectOfExtendedCommand() throws {
        let k = randomKeys(.aes128)
        var reader = SecureMessagingSession(keys: k)
        let command = CommandAPDU(ins: 0xD6, p1: 0, p2: 0, data: [UInt8](repeating: 1, count: 300), ne: 256)
        let protected = try reader.protect(command)
        // DO'87' (1 + 3 + 1 + 304) then DO'97'
        #expect(Array(protected.data[309..<313]) == hex("97020100"))
        var chip = SecureMessagingSession(keys: k)
        #expect(try chip.unprotectCommand(protected).ne == 256)
    }

    /// DO'97' encodes Le in one byte up to 256 ('00') and in two bytes above ('0000' = 65536).
    @Test(arguments: [(4, "970104"), (256, "970100"), (1000, "970203E8"), (65536, "97020000")])
    func leDataObject(_ ne: Int, _ expected: String) throws {
        var session = SecureMessagingSession(keys: randomKeys(.aes128))
        let protected = try session.protect(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: ne))
        #expect(Array(protected.data.prefix(hex(expected).count)) == hex(expected))
        let encoded = protected.bytes
        if ne > 256 {
            #expect(protected.isExtended)
            #expect(Array(encoded.suffix(2)) == [0, 0])  // outer Le '0000'
            #expect(encoded[4] == 0)  // extended Lc marker
        } else {
            #expect(!protected.isExtended)
            #expect(encoded.last == 0)  // outer Le '00'
        }
    }

    /// The documented maximum plaintext fills a short response exactly; one more byte does not fit.
    @Test(arguments: CipherAlgorithm.allCases)
    func maxShortResponse(_ cipher: CipherAlgorithm) throws {
        let max = SecureMessagingSession.maxShortResponsePlaintext(cipher: cipher)
        #expect(max == (cipher == .tripleDES ? 231 : 223))
        var chip = SecureMessagingSession(keys: randomKeys(cipher))
        let fits = try chip.protectResponse(ResponseAPDU(data: [UInt8](repeating: 1, count: max), sw: 0x9000))
        #expect(fits.data.count <= 256)
        let tooLong = try chip.protectResponse(ResponseAPDU(data: [UInt8](repeating: 1, count: max + 1), sw: 0x9000))
        #expect(tooLong.data.count > 256)
    }

    /// A plain error status without SM objects kills the session and carries the status word.
    @Test(arguments: [0x6982, 0x6988, 0x6A82] as [UInt16])
    func plainErrorStatusKillsSession(_ sw: UInt16) throws {
        var session = SecureMessagingSession(keys: randomKeys(.aes128))
        _ = try session.protect(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 4))
        let error = #expect(throws: SecureMessagingError.self) { try session.unprotect(ResponseAPDU(sw: sw)) }
        #expect(error?.code == .chipRejectedSecureMessaging)
        #expect(error?.statusWord == StatusWord(rawValue: sw))
        #expect(error?.reason.contains(String(sw, radix: 16, uppercase: true)) == true)
        #expect(session.isDead == true)
    }

    /// A response with a valid MAC but no DO'99' is malformed; a truncated object list too.
    @Test func missingStatusObjectIsMalformed() throws {
        let k = randomKeys(.tripleDES)
        var reader = SecureMessagingSession(keys: k)
        var chip = SecureMessagingSession(keys: k)
        _ = try chip.unprotectCommand(reader.protect(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 4)))
        // Forge on the chip side: DO'87' then DO'8E' over DO'87' only, at the response SSC.
        var forger = chip
        let wrapped = try forger.protectResponse(ResponseAPDU(data: [1, 2, 3], sw: 0x9000))
        let do87 = Array(wrapped.data[0..<(2 + Int(wrapped.data[1]))])
        let ssc = forger.sendSequenceCounter
        let mac = try RetailMAC.mac(key: k.mac, ssc + do87)
        let error = #expect(throws: SecureMessagingError.self) {
            try reader.unprotect(ResponseAPDU(data: do87 + [0x8E, 0x08] + mac, sw: 0x9000))
        }
        #expect(error?.code == .malformedResponse)
        #expect(reader.isDead == true)

        var other = SecureMessagingSession(keys: k)
        _ = try other.protect(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 4))
        let malformed = #expect(throws: SecureMessagingError.self) {
            try other.unprotect(ResponseAPDU(data: [0x99, 0x02, 0x90], sw: 0x9000))
        }
        #expect(malformed?.code == .malformedResponse)
        #expect(other.isDead == true)
    }

    /// The protected field is read as BER (ASN1TLV's `TLVCursor`): a non-minimal length form, as some chips
    /// write, is taken when the MAC covers it; an indefinite length or a length past the field is malformed.
    @Test func responseObjectsAreReadAsBERWithoutIndefiniteLength() throws {
        let k = randomKeys(.tripleDES)
        func answer(_ objects: [UInt8]) throws -> (
            readerIsDead: Bool, result: Result<ResponseAPDU, SecureMessagingError>
        ) {
            var reader = SecureMessagingSession(keys: k)
            var chip = SecureMessagingSession(keys: k)
            _ = try chip.unprotectCommand(reader.protect(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 4)))
            // a forger at the chip's SSC (a session is not copyable: a second one is made from the counter)
            var forger = SecureMessagingSession(keys: k, ssc: chip.sendSequenceCounter)
            _ = try forger.protectResponse(ResponseAPDU(data: [], sw: 0x9000))
            let mac = try RetailMAC.mac(key: k.mac, forger.sendSequenceCounter + objects)
            let response = ResponseAPDU(data: objects + [0x8E, 0x08] + mac, sw: 0x9000)
            let result = Result { () throws(SecureMessagingError) in try reader.unprotect(response) }
            return (reader.isDead, result)
        }
        let (_, longForm) = try answer([0x99, 0x81, 0x02, 0x62, 0x82])
        #expect(try longForm.get().statusWord.rawValue == 0x6282)
        for objects: [UInt8] in [[0xB9, 0x80, 0x99, 0x02, 0x90, 0x00, 0x00, 0x00], [0x99, 0x7F, 0x90, 0x00]] {
            let (readerIsDead, result) = try answer(objects)
            #expect(throws: SecureMessagingError.self) { try result.get() }
            if case .failure(let error) = result { #expect(error.code == .malformedResponse, "\(error)") }
            #expect(readerIsDead)
        }
    }

    /// Each session keys its own cipher contexts once: after a re-key (Chip Authentication, a new PACE run)
    /// the new session protects with the new keys only — checked against the one-shot primitives.
    @Test(arguments: CipherAlgorithm.allCases)
    func reKeyedSessionUsesNewKeys(_ cipher: CipherAlgorithm) throws {
        let old = randomKeys(cipher)
        let new = randomKeys(cipher)
        let command = CommandAPDU(ins: 0xB0, p1: 0x81, p2: 0, ne: 4)
        var reader = SecureMessagingSession(keys: old)
        var chipOld = SecureMessagingSession(keys: old)
        _ = try chipOld.unprotectCommand(reader.protect(command))
        #expect(
            try reader.unprotect(chipOld.protectResponse(ResponseAPDU(data: [1, 2, 3, 4], sw: 0x9000))).data == [
                1, 2, 3, 4,
            ])

        reader = SecureMessagingSession(keys: new)
        let protected = try reader.protect(command)
        // DO'97' and the MAC over pad(SSC = 1 || pad(header) || DO'97'), computed one-shot with the new KSmac
        let bs = cipher.blockSize
        let ssc = [UInt8](repeating: 0, count: bs - 1) + [1]
        let input = ssc + Padding.pad([0x0C, 0xB0, 0x81, 0x00], blockSize: bs) + [0x97, 0x01, 0x04]
        let mac =
            cipher == .tripleDES
            ? try RetailMAC.mac(key: new.mac, input)
            : Array(try AESCMAC.mac(key: new.mac, Padding.pad(input, blockSize: 16)).prefix(8))
        #expect(protected.data == [0x97, 0x01, 0x04, 0x8E, 0x08] + mac)
        var stale = SecureMessagingSession(keys: old)
        #expect(throws: SecureMessagingError.self) { try stale.unprotectCommand(protected) }
        var chipNew = SecureMessagingSession(keys: new)
        #expect(try chipNew.unprotectCommand(protected) == command)
        let answer = try chipNew.protectResponse(ResponseAPDU(data: [5, 6, 7], sw: 0x9000))
        // a session is not copyable; a second one made from the same keys and counter unwraps the same answer
        var second = SecureMessagingSession(keys: new, ssc: reader.sendSequenceCounter)
        #expect(try second.unprotect(answer).data == [5, 6, 7])
        #expect(try reader.unprotect(answer).data == [5, 6, 7])
        #expect(second.sendSequenceCounter == reader.sendSequenceCounter)
        // the old session still works under the old keys
        var oldReader = SecureMessagingSession(keys: old, ssc: [UInt8](repeating: 0, count: bs - 1) + [2])
        #expect(try chipOld.unprotectCommand(oldReader.protect(command)) == command)
    }

    /// A key that does not fit the cipher fails the operation (and kills the session), as before.
    @Test func unfitKeyFailsTheOperation() throws {
        let keys = SessionKeys(
            cipher: .aes256, encryption: SecretBytes([UInt8](repeating: 1, count: 20)),
            mac: SecretBytes([UInt8](repeating: 2, count: 32)))
        var session = SecureMessagingSession(keys: keys)
        let error = #expect(throws: SecureMessagingError.self) {
            try session.protect(CommandAPDU(ins: 0xA4, p1: 2, p2: 0x0C, data: [1, 0x1E]))
        }
        #expect(error?.code == .commandTooLong)
        #expect(session.isDead == true)
        let badMAC = SessionKeys(
            cipher: .aes128, encryption: SecretBytes([UInt8](repeating: 1, count: 16)),
            mac: SecretBytes([UInt8](repeating: 2, count: 8)))
        var other = SecureMessagingSession(keys: badMAC)
        let macError = #expect(throws: SecureMessagingError.self) {
            try other.protect(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 4))
        }
        #expect(macError?.code == .malformedResponse)
    }

    @Test func descriptionsAreRedacted() {
        let k = SessionKeys(
            cipher: .aes128, encryption: SecretBytes([UInt8](repeating: 0xAB, count: 16)),
            mac: SecretBytes([UInt8](repeating: 0xCD, count: 16)))
        let s = SecureMessagingSession(keys: k)
        #expect(!s.description.contains("AB") && !s.description.contains("171"))
        #expect(!"\(k)".contains("AB") && !"\(k)".contains("171"))
    }
}

/// A transport whose far end is a chip-side SM session answering READ BINARY with fixed content.
final class SMChipTransport: CardTransport {
    let name = "sm chip"
    struct State: ~Copyable {
        var session: SecureMessagingSession
        var corruptNext = false
        var failNext = false
    }
    private let state: Mutex<State>
    init(session: consuming SecureMessagingSession) { state = Mutex(State(session: session)) }
    var capabilities: TransportCapabilities { .extended }
    var atr: [UInt8] { [0x3B, 0x80] }
    func corruptNextResponse() { state.withLock { $0.corruptNext = true } }
    func failNextTransmit() { state.withLock { $0.failNext = true } }
    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        try state.withLock { s in
            if s.failNext {
                s.failNext = false
                throw TransportError(.cardRemoved, function: "transmit", "card removed")
            }
            guard command.isSecureMessaging else { return ResponseAPDU(sw: 0x9000) }
            let plain = try s.session.unprotectCommand(command)
            let data = [UInt8](repeating: plain.p2, count: plain.ne ?? 0 > 256 ? 300 : plain.ne ?? 0)
            var response = try s.session.protectResponse(ResponseAPDU(data: data, sw: 0x9000))
            if s.corruptNext {
                s.corruptNext = false
                response.data[response.data.count - 1] ^= 1
            }
            return response
        }
    }
    func reconnect(reset: Bool, timeout: Double) async throws {}
}

@Suite struct SecureChannelTests {
    @Test func transmitsAndObserves() async throws {
        let k = randomKeys(.aes256)
        let transport = SMChipTransport(session: SecureMessagingSession(keys: k))
        let channel = SecureChannel(transport: transport, session: SecureMessagingSession(keys: k))
        let seen = Mutex<[ChannelExchange]>([])
        await channel.setObserver { exchange in seen.withLock { $0.append(exchange) } }
        // concurrent callers are serialised: the SSC stays in step
        try await withThrowingTaskGroup(of: ResponseAPDU.self) { group in
            for i in 0..<8 {
                group.addTask { try await channel.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: UInt8(i), ne: 16)) }
            }
            for try await response in group { #expect(response.data.count == 16 && response.statusWord == .success) }
        }
        let big = try await channel.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 9, ne: 1000))
        #expect(big.data.count == 300)
        #expect(seen.withLock { $0.count } == 9)
        #expect(seen.withLock { $0.last?.protectedCommandLength ?? 0 } > 4)
        #expect(await channel.cipher == .aes256)
        #expect(await !channel.isDead)
    }

    @Test func corruptedMACKillsChannel() async throws {
        let k = randomKeys(.tripleDES)
        let transport = SMChipTransport(session: SecureMessagingSession(keys: k))
        let channel = SecureChannel(transport: transport, session: SecureMessagingSession(keys: k))
        _ = try await channel.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 1, ne: 8))
        transport.corruptNextResponse()
        await #expect(throws: SecureMessagingError.self) {
            try await channel.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 1, ne: 8))
        }
        #expect(await channel.isDead)
        do {
            _ = try await channel.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 1, ne: 8))
            Issue.record("a dead channel must refuse")
        } catch let error as SecureMessagingError {
            #expect(error.code == .sessionDead)
        }
        // a new session (e.g. after chip authentication) revives it
        let fresh = randomKeys(.aes128)
        let transport2 = SMChipTransport(session: SecureMessagingSession(keys: fresh))
        let channel2 = SecureChannel(transport: transport2, session: SecureMessagingSession(keys: k))
        await channel2.replaceSession(SecureMessagingSession(keys: fresh))
        #expect(try await channel2.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 2, ne: 4)).data == [2, 2, 2, 2])
    }

    @Test func transportFailureKillsChannel() async throws {
        let k = randomKeys(.aes128)
        let transport = SMChipTransport(session: SecureMessagingSession(keys: k))
        let channel = SecureChannel(transport: transport, session: SecureMessagingSession(keys: k))
        transport.failNextTransmit()
        await #expect(throws: TransportError.self) {
            try await channel.transmit(CommandAPDU(ins: 0xB0, p1: 0, p2: 1, ne: 8))
        }
        #expect(await channel.isDead)
        let plain = try await channel.transmitPlain(CommandAPDU(ins: 0xA4, p1: 4, p2: 0x0C, data: [0xA0]))
        #expect(plain.statusWord == .success)
    }
}

/// Many full-size protected exchanges in a row stay in step (the send sequence counters of both sides advance
/// together, every MAC verifies). Their cost is measured by `emrtd bench` (docs/performance.md), never by a test.
@Suite struct SecureMessagingSequenceTests {
    @Test(arguments: [CipherAlgorithm.tripleDES, .aes128, .aes256])
    func manyExchangesStayInStep(_ cipher: CipherAlgorithm) throws {
        let k = SessionKeys.derive(sharedSecret: [UInt8](repeating: 1, count: 32), cipher: cipher)
        var reader = SecureMessagingSession(keys: k)
        var chip = SecureMessagingSession(keys: k)
        let data = [UInt8](repeating: 0x42, count: SecureMessagingSession.maxShortResponsePlaintext(cipher: cipher))
        for i in 0..<500 {
            let command = try reader.protect(
                CommandAPDU(ins: 0xB0, p1: UInt8(i >> 8 & 0x7F), p2: UInt8(i & 0xFF), ne: data.count))
            _ = try chip.unprotectCommand(command)
            let response = try chip.protectResponse(ResponseAPDU(data: data, sw: 0x9000))
            #expect(try reader.unprotect(response).data == data)
        }
    }
}
