import Foundation
import ISO7816
import MRTDTestSupport
import PCSCTransport
import Synchronization
import Testing
import VPCDBridge

/// A virtual card served on vpcd slot 0 for the duration of a test.
final class ServedCard: Sendable {
    let card: TestCard
    let bridge: VPCDBridge
    let task: Task<VPCDBridge.EndReason, any Error>

    init(_ card: TestCard, removeCardAfterAPDUs: Int? = nil, leaveOnPowerOn: Int? = nil, connectTimeout: Double = 5) {
        self.card = card
        self.bridge = VPCDBridge(
            emulator: card, port: PCSCTestEnvironment.vpcdPort,
            removeCardAfterAPDUs: removeCardAfterAPDUs, connectTimeout: connectTimeout,
            leaveOnPowerOn: leaveOnPowerOn)
        let bridge = self.bridge
        self.task = Task { try await bridge.run() }
    }

    /// Waits until pcscd sees the card on the reader.
    func waitPresent(_ context: PCSCContext) async throws {
        _ = try await withTimeout(10, "card present on \(PCSCTestEnvironment.readerName)") {
            try await context.waitForCard(reader: PCSCTestEnvironment.readerName, timeout: 8)
        }
    }

    /// Pulls the card and waits until the bridge has returned.
    @discardableResult
    func remove() async throws -> VPCDBridge.EndReason {
        bridge.stop()
        let task = self.task
        return try await withTimeout(5, "bridge end") { try await task.value }
    }
}

/// Waits until pcscd reports no card on the vpcd reader.
func waitAbsent(_ context: PCSCContext) async throws {
    let gone = await eventually(8) {
        let states = (try? await context.readerStates([PCSCTestEnvironment.readerName])) ?? []
        return states.first.map { !$0.flags.contains(.present) } ?? false
    }
    if !gone { throw TimedOut(what: "card absent on \(PCSCTestEnvironment.readerName)", seconds: 8) }
}

/// The real-stack tests: libpcsclite → pcscd → vpcd driver → TCP → VPCDBridge → TestCard.
/// They share vpcd slot 0, so they run one after another.
// Skipped (with the reason printed and as the skip comment) when pcscd or vpcd is not installed.
@Suite(
    "PC/SC through pcscd and vpcd", .serialized,
    .enabled(
        if: PCSCTestEnvironment.isAvailable,
        Comment(rawValue: PCSCTestEnvironment.unavailableReason ?? "pcscd/vpcd available")))
struct PCSCIntegrationTests {
    let reader = PCSCTestEnvironment.readerName

    @Test("reader listing includes the vpcd reader")
    func listing() async throws {
        let context = try await PCSCContext.establish()
        let names = try await context.readerNames()
        #expect(
            names.contains(reader),
            "pcscd does not list \(reader) (readers: \(names)); was pcscd started before vsmartcard-vpcd was installed? restart it"
        )
        let states = try await context.readerStates()
        #expect(states.map(\.reader) == names)
    }

    @Test("connect (T=1), ATR, short and extended APDUs, capabilities, statistics")
    func connectAndTransmit() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let context = try await PCSCContext.establish()
        try await waitAbsent(context)
        let served = ServedCard(TestCard())
        try await served.waitPresent(context)
        let transport = try await PCSCCardTransport.connect(reader: reader)
        #expect(transport.activeProtocol == .t1)
        #expect(transport.atr == TestCard.atrT1)

        // Short case 4: echo.
        let short = CommandAPDU(cla: 0x80, ins: 0xEE, p1: 0, p2: 0, data: [1, 2, 3, 4, 5], ne: 256)
        let r1 = try await transport.transmit(short)
        #expect(r1.statusWord == .success)
        #expect(r1.data == [1, 2, 3, 4, 5])
        #expect(served.card.commands.last == short.bytes, "the card must see the command byte for byte")

        // Extended case 4: 1000 data bytes out, 1000 back.
        let payload = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let ext = CommandAPDU(cla: 0x80, ins: 0xEE, p1: 0, p2: 0, data: payload, ne: 1000)
        #expect(ext.isExtended)
        let r2 = try await transport.transmit(ext)
        #expect(r2.data == payload)
        #expect(served.card.commands.last == ext.bytes)

        // Extended case 2: a 4000-byte response.
        let r3 = try await transport.transmit(CommandAPDU(cla: 0x80, ins: 0xE2, p1: 0, p2: 0, ne: 4000))
        #expect(r3.data == TestCard.fill(4000))

        // The largest messages the vpcd link carries (65535 bytes each way).
        let big = try await transport.transmit(CommandAPDU(cla: 0x80, ins: 0xE2, p1: 0, p2: 0, ne: 65533))
        #expect(big.data == TestCard.fill(65533))
        let bigData = TestCard.fill(65528).map { $0 ^ 0x5A }
        let bigEcho = try await transport.transmit(CommandAPDU(cla: 0x80, ins: 0xEE, p1: 0, p2: 0, data: bigData))
        #expect(bigEcho.data == bigData)
        #expect(served.card.commands.last?.count == 65535)

        // An error status word is a response, not an error.
        let r4 = try await transport.transmit(CommandAPDU(cla: 0x80, ins: 0x01, p1: 0, p2: 0))
        #expect(r4.statusWord == .insNotSupported)

        // Capabilities: vpcd answers no PC/SC part 10 request; the tested profile decides.
        let report = transport.capabilityReport
        #expect(report.profile?.id == "vsmartcard-vpcd")
        #expect(
            report.source == "profile" || report.source == "reader+profile",
            "vpcd 3.3 reports no properties, later versions do")
        let caps = await (transport as any CardTransport).capabilities
        #expect(caps.isKnown && caps.supportsExtendedLength)
        #expect(caps.maxCommandSize == 65535 && caps.maxResponseSize == 65535)

        let stats = transport.statistics
        #expect(stats.apdus == 6)
        #expect(stats.bytesSent == short.bytes.count + ext.bytes.count + 7 + 7 + 65535 + 4)
        #expect(stats.bytesReceived == 7 + 1002 + 4002 + 65535 + 65530 + 2)
        #expect(stats.apdusByInstruction[0xEE] == 3)

        try await transport.disconnect()
        await #expect(throws: TransportError.self) { try await transport.transmit(short) }
        try await served.remove()
    }

    @Test("T=0 card: protocol fallback, 61xx → GET RESPONSE chain, 6Cxx → re-issue with Le")
    func t0Rules() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let context = try await PCSCContext.establish()
        try await waitAbsent(context)
        let served = ServedCard(TestCard(atr: TestCard.atrT0, pendingLength: 300))
        try await served.waitPresent(context)
        let transport = try await PCSCCardTransport.connect(reader: reader)
        #expect(transport.activeProtocol == .t0)

        let more = try await transport.transmit(CommandAPDU(ins: 0xE4, p1: 0, p2: 0, data: [0xAA], ne: 256))
        #expect(more.statusWord == .success)
        #expect(more.data == TestCard.fill(300), "the 300 bytes of two GET RESPONSEs are joined")
        let sent = served.card.commands.suffix(3)
        #expect(sent.map { $0[1] } == [0xE4, 0xC0, 0xC0])
        #expect(Array(sent)[1] == [0x00, 0xC0, 0x00, 0x00, 0x00], "first GET RESPONSE asks for 256 ('61 00')")
        #expect(Array(sent)[2] == [0x00, 0xC0, 0x00, 0x00, 0x2C], "second asks for the 44 left")

        let wrongLe = try await transport.transmit(CommandAPDU(ins: 0xE6, p1: 0, p2: 0, ne: 256))
        #expect(wrongLe.statusWord == .success)
        #expect(wrongLe.data == TestCard.fill(8))
        #expect(served.card.commands.suffix(2).map { $0.last } == [0x00, 0x08], "re-issued with Le = 08")
        #expect(transport.statistics.apdus == 2, "one logical APDU each")
        try await served.remove()
    }

    @Test("card pulled mid-session: typed error, then reconnect after re-presenting")
    func removalAndReconnect() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let context = try await PCSCContext.establish()
        try await waitAbsent(context)
        let first = ServedCard(TestCard(), removeCardAfterAPDUs: 2)
        try await first.waitPresent(context)
        let transport = try await PCSCCardTransport.connect(reader: reader)
        let echo = CommandAPDU(ins: 0xEE, p1: 0, p2: 0, data: [9, 9], ne: 2)
        _ = try await transport.transmit(echo)
        _ = try await transport.transmit(echo)
        let error = await #expect(throws: TransportError.self) { try await transport.transmit(echo) }
        #expect(error?.kind == .cardRemoved || error?.kind == .noCard, "got \(String(describing: error))")
        #expect(error?.isRecoverableByRepresenting == true)
        #expect(error?.function == "SCardTransmit")
        #expect(try await withTimeout(5, "bridge end") { try await first.task.value } == .cardPulled)

        // Not re-presented: the reconnect gives up after its timeout, as a timeout.
        try await waitAbsent(context)
        let started = ContinuousClock.now
        let timeout = await #expect(throws: TransportError.self) {
            try await transport.reconnect(reset: false, timeout: 1)
        }
        #expect(timeout?.kind == .timeout)
        #expect(ContinuousClock.now - started < .seconds(4))

        // Re-presented (a new card session): reconnect succeeds and APDUs flow again.
        let second = ServedCard(TestCard())
        try await withTimeout(15, "reconnect") { try await transport.reconnect(reset: false, timeout: 10) }
        #expect(transport.atr == TestCard.atrT1)
        let r = try await transport.transmit(echo)
        #expect(r.data == [9, 9])

        // Reconnect with reset while the card stays: the card sees a reset.
        let resetsBefore = second.card.resets
        try await withTimeout(10, "reconnect with reset") { try await transport.reconnect(reset: true, timeout: 5) }
        #expect(second.card.resets > resetsBefore)
        _ = try await transport.transmit(echo)
        try await second.remove()
    }

    @Test("status-change events: reader present, card inserted, card removed")
    func events() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let context = try await PCSCContext.establish()
        try await waitAbsent(context)
        let seen = Box<[PCSCEvent]>([])
        let consumer = Task {
            for try await e in PCSCContext.events(reader: reader) { seen.withLock { $0.append(e) } }
        }
        defer { consumer.cancel() }
        func saw(_ expected: [PCSCEvent]) async -> Bool {
            await eventually(10) { seen.withLock { $0 } == expected }
        }
        #expect(await saw([.readerAdded(reader: reader)]), "\(seen.withLock { $0 })")
        let served = ServedCard(TestCard())
        #expect(
            await saw([.readerAdded(reader: reader), .cardInserted(reader: reader, atr: TestCard.atrT1)]),
            "\(seen.withLock { $0 })")
        try await served.remove()
        #expect(
            await saw([
                .readerAdded(reader: reader), .cardInserted(reader: reader, atr: TestCard.atrT1),
                .cardRemoved(reader: reader),
            ]), "\(seen.withLock { $0 })")
    }

    @Test("cancelling a wait ends it through SCardCancel, promptly")
    func cancellation() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let context = try await PCSCContext.establish()
        try await waitAbsent(context)
        let waiter = Task { try await context.waitForCard(reader: reader, timeout: 30) }
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        waiter.cancel()
        let result = await withTimeout5 { await waiter.result }
        // The slice of one SCardGetStatusChange is 2 s: ending well within it shows SCardCancel did it.
        #expect(ContinuousClock.now - started < .milliseconds(1500))
        guard case .failure(let error as TransportError) = result else {
            Issue.record("expected a TransportError, got \(String(describing: result))")
            return
        }
        #expect(error.kind == .cancelled)
        #expect(error.message.contains("SCARD_E_CANCELLED"))

        // The event stream ends cleanly when the consumer goes away.
        let consumer = Task {
            var n = 0
            for try await _ in PCSCContext.events(reader: reader) { n += 1 }
            return n
        }
        try await Task.sleep(for: .milliseconds(300))
        consumer.cancel()
        let ended = await withTimeout5 { await consumer.result }
        #expect(ended != nil, "the event stream must end after cancellation")
    }

    @Test("connect errors: unknown reader, no card, sharing violation")
    func connectErrors() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let context = try await PCSCContext.establish()
        try await waitAbsent(context)

        let unknown = await #expect(throws: TransportError.self) {
            try await PCSCCardTransport.connect(reader: "No Such Reader 00 00")
        }
        #expect(unknown?.kind == .noReader)
        #expect(unknown?.function == "SCardConnect")

        let noCard = await #expect(throws: TransportError.self) { try await PCSCCardTransport.connect(reader: reader) }
        #expect(noCard?.kind == .noCard)
        #expect(noCard?.message.contains("SCARD_E_NO_SMARTCARD") == true)

        let anyReader = await #expect(throws: TransportError.self) {
            try await context.waitForCard(reader: nil, timeout: 0.3)
        }
        #expect(anyReader?.kind == .timeout, "no card on any reader")

        let noWait = await #expect(throws: TransportError.self) {
            try await context.waitForCard(reader: reader, timeout: 0.3)
        }
        #expect(noWait?.kind == .timeout)

        let served = ServedCard(TestCard())
        try await served.waitPresent(context)
        let found = try await withTimeout(5, "any reader") { try await context.waitForCard(reader: nil, timeout: 3) }
        #expect(found.reader == reader && found.atr == TestCard.atrT1)
        let holder = try await PCSCCardTransport.connect(reader: reader, share: .exclusive)
        let busy = await #expect(throws: TransportError.self) { try await PCSCCardTransport.connect(reader: reader) }
        #expect(busy?.kind == .sharingViolation)
        try await holder.disconnect()

        // A transaction keeps other connections' APDUs out until it ends: pcsc-lite makes them wait.
        let first = try await PCSCCardTransport.connect(reader: reader)
        let second = try await PCSCCardTransport.connect(reader: reader)
        try await withTimeout(5, "begin transaction") { try await first.beginTransaction() }
        let echo = CommandAPDU(ins: 0xEE, p1: 0, p2: 0, data: [2], ne: 1)
        #expect(try await first.transmit(echo).data == [2])
        let waiting = Task { try await second.transmit(echo) }
        try await Task.sleep(for: .milliseconds(600))
        #expect(second.statistics.apdus == 0, "the other connection's APDU waits while the transaction holds")
        try await withTimeout(5, "end transaction") { try await first.endTransaction() }
        let after = try await withTimeout(10, "the waiting APDU") { try await waiting.value }
        #expect(after.data == [2])
        #expect(second.statistics.apdus == 1)
        try await first.disconnect()
        try await second.disconnect()

        let now = try await PCSCCardTransport.connect(reader: reader)
        #expect(try await now.transmit(CommandAPDU(ins: 0xEE, p1: 0, p2: 0, data: [1], ne: 1)).data == [1])
        try await served.remove()
    }

    @Test("connectWhenPresented: waits for the card (bounded), by reader query or on any reader")
    func connectWhenPresented() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let context = try await PCSCContext.establish()
        try await waitAbsent(context)
        let none = await #expect(throws: TransportError.self) {
            try await PCSCCardTransport.connectWhenPresented(readerQuery: "pcd 00 00", timeout: 0.5)
        }
        #expect(none?.kind == .timeout)
        let ambiguous = await #expect(throws: TransportError.self) {
            try await PCSCCardTransport.connectWhenPresented(readerQuery: "Virtual PCD", timeout: 0.5)
        }
        #expect(ambiguous?.kind == .noReader, "two vpcd slots match")

        // The card comes a moment after the wait began.
        let waiting = Task { try await PCSCCardTransport.connectWhenPresented(readerQuery: "pcd 00 00", timeout: 10) }
        try await Task.sleep(for: .milliseconds(300))
        let served = ServedCard(TestCard())
        let transport = try await withTimeout(15, "connectWhenPresented") { try await waiting.value }
        #expect(transport.name == reader)
        #expect(try await transport.transmit(CommandAPDU(ins: 0xEE, p1: 0, p2: 0, data: [7], ne: 1)).data == [7])
        let anyReader = try await PCSCCardTransport.connectWhenPresented(readerQuery: nil, timeout: 5)
        #expect(anyReader.name == reader)
        try await served.remove()
    }

    @Test("capability report of the vpcd reader without a card")
    func capabilityReport() async throws {
        let context = try await PCSCContext.establish()
        let report = try await context.capabilityReport(reader: reader)
        #expect(report.profile?.id == "vsmartcard-vpcd")
        #expect(report.capabilities.isKnown)
        #expect(report.capabilities.supportsExtendedLength)
        let missing = await #expect(throws: TransportError.self) { try await context.capabilityReport(reader: "nope") }
        #expect(missing?.kind == .noReader)
    }
}

func withTimeout5<T: Sendable>(_ body: @escaping @Sendable () async -> T) async -> T? {
    try? await withTimeout(5, "operation") { await body() }
}

/// A value shared between a test and the tasks it starts.
final class Box<T: Sendable>: Sendable {
    private let m: Mutex<T>
    init(_ value: T) { m = Mutex(value) }
    func withLock<R>(_ body: (inout T) -> R) -> R { m.withLock { body(&$0) } }
}
