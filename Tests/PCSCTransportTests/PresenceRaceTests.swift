import Foundation
import ISO7816
import MRTDTestSupport
import PCSCTransport
import Testing
import VPCDBridge

#if canImport(Glibc)
    import Glibc
#endif

/// Presence races and PC/SC faults, through pcscd and vpcd: a card that flickers out
/// between "present" and the connection, a card reset by another application, pcscd restarted.
@Suite(
    "PC/SC presence races and faults", .serialized,
    .enabled(
        if: PCSCTestEnvironment.isAvailable,
        Comment(rawValue: PCSCTestEnvironment.unavailableReason ?? "pcscd/vpcd available")))
struct PresenceRaceTests {
    let reader = PCSCTestEnvironment.readerName
    let echo = CommandAPDU(ins: 0xEE, p1: 0, p2: 0, data: [7, 7, 7], ne: 3)

    /// Serves a card that leaves the field when a connection powers it: it is seen present, pcscd powers it
    /// down when idle, and the application's SCardConnect (which powers it again) finds it gone.
    func flickeringCard(_ context: PCSCContext) async throws -> ServedCard {
        let flicker = ServedCard(TestCard(), leaveOnPowerOn: 2)
        try await flicker.waitPresent(context)
        let idle = await eventually(10) { flicker.bridge.powerOns >= 1 && !flicker.bridge.isPowered }
        #expect(idle, "pcscd did not power the idle card down (powered on \(flicker.bridge.powerOns) time(s))")
        return flicker
    }

    // (the waits are generous: under the parallel suite, tests that compute for minutes can hold the cooperative
    // threads, and a task of this test then runs late)
    @Test("a card gone between \"present\" and the connection: connectWhenPresented keeps waiting for it")
    func connectWhenPresentedSurvivesAFlicker() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let context = try await PCSCContext.establish()
        try await waitAbsent(context)
        let flicker = try await flickeringCard(context)
        defer { flicker.bridge.stop() }
        let reader = self.reader
        let waiting = Task { try await PCSCCardTransport.connectWhenPresented(readerQuery: reader, timeout: 90) }
        // the connection powers the card: it leaves the field
        #expect(try await withTimeout(60, "the flickering card leaves") { try await flicker.task.value } == .cardPulled)
        #expect(flicker.bridge.powerOns == 2)
        // pcscd sees it gone (vpcd: a card back within pcscd's polling interval would look never removed, and pcscd
        // keeps the card it failed to power), then it is laid on the reader again
        try await waitAbsent(context)
        let second = ServedCard(TestCard())
        defer { second.bridge.stop() }
        let transport = try await withTimeout(90, "connectWhenPresented") { try await waiting.value }
        try await expectConnected(transport, to: second)
    }

    /// `transport` talks to `card` (one echo), then the card is pulled.
    func expectConnected(_ transport: PCSCCardTransport, to card: ServedCard) async throws {
        let r = try await transport.transmit(echo)
        #expect(r.data == [7, 7, 7])
        #expect(card.card.commands.count == 1)
        try await transport.disconnect()
        try await card.remove()
    }

    @Test("a card gone between \"present\" and the connection: reconnect keeps waiting for it")
    func reconnectSurvivesAFlicker() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let context = try await PCSCContext.establish()
        try await waitAbsent(context)
        let first = ServedCard(TestCard())
        defer { first.bridge.stop() }
        try await first.waitPresent(context)
        let transport = try await PCSCCardTransport.connect(reader: reader)
        _ = try await transport.transmit(echo)
        try await first.remove()
        try await waitAbsent(context)

        let flicker = try await flickeringCard(context)
        defer { flicker.bridge.stop() }
        let reconnecting = Task { try await transport.reconnect(reset: true, timeout: 90) }
        #expect(try await withTimeout(60, "the flickering card leaves") { try await flicker.task.value } == .cardPulled)
        try await waitAbsent(context)
        let third = ServedCard(TestCard())
        defer { third.bridge.stop() }
        try await withTimeout(90, "reconnect") { try await reconnecting.value }
        try await expectConnected(transport, to: third)
    }

    @Test("a flickering card that never settles: the wait ends as a timeout, on time")
    func flickerUntilTheTimeout() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let context = try await PCSCContext.establish()
        try await waitAbsent(context)
        let flicker = try await flickeringCard(context)
        defer { flicker.bridge.stop() }
        let started = ContinuousClock.now
        let error = await #expect(throws: TransportError.self) {
            _ = try await PCSCCardTransport.connectWhenPresented(readerQuery: reader, timeout: 3)
        }
        #expect(error?.kind == .timeout, "got \(String(describing: error))")
        #expect(ContinuousClock.now - started < .seconds(8))
        _ = try? await flicker.remove()
    }

    @Test("SCARD_W_RESET_CARD (another application reset the card): reconnect and resume")
    func resetByAnotherApplication() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let context = try await PCSCContext.establish()
        try await waitAbsent(context)
        let served = ServedCard(TestCard())
        defer { served.bridge.stop() }
        try await served.waitPresent(context)
        let ours = try await PCSCCardTransport.connect(reader: reader)
        _ = try await ours.transmit(echo)
        let other = try await PCSCCardTransport.connect(reader: reader)
        try await other.disconnect(resetCard: true)
        let error = await #expect(throws: TransportError.self) { try await ours.transmit(echo) }
        #expect(error?.kind == .cardReset, "got \(String(describing: error))")
        #expect(error?.isRecoverableByRepresenting == true)
        try await withTimeout(10, "reconnect") { try await ours.reconnect(reset: false, timeout: 5) }
        let r = try await ours.transmit(echo)
        #expect(r.data == [7, 7, 7])
        try await ours.disconnect()
        try await served.remove()
    }

    /// Restarting the machine's pcscd disturbs every other PC/SC user of the machine, so this test runs only when
    /// EMRTD_TEST_PCSCD_RESTART=1; run it alone, holding `flock /tmp/emrtd-pcsc.lock`. It leaves pcscd running.
    /// The suite's own coverage of a pcscd restart is `PCSCDaemonRestartTests` (EMRTDCLITests), which restarts a
    /// private pcscd under `emrtd read`, waiting and mid-read.
    @Test(
        "pcscd restarted (SCARD_E_NO_SERVICE / SERVICE_STOPPED): a new context and a retry within the timeout",
        .enabled(
            if: ProcessInfo.processInfo.environment["EMRTD_TEST_PCSCD_RESTART"] == "1",
            "set EMRTD_TEST_PCSCD_RESTART=1 to restart pcscd in this test"))
    func pcscdRestart() async throws {
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        var context = try await PCSCContext.establish()
        try await waitAbsent(context)
        let first = ServedCard(TestCard())
        defer { first.bridge.stop() }
        try await first.waitPresent(context)
        let transport = try await PCSCCardTransport.connect(reader: reader)
        _ = try await transport.transmit(echo)

        // 1. A connection across a restart: the next exchange says the session is lost, reconnect gets a new context.
        try await PCSCDaemon.restart()
        #expect(try await withTimeout(10, "bridge end") { try await first.task.value } == .closedByVPCD)
        let second = ServedCard(TestCard(), connectTimeout: 15)
        defer { second.bridge.stop() }
        let lost = await #expect(throws: TransportError.self) { try await transport.transmit(echo) }
        #expect(lost?.kind == .cardReset, "got \(String(describing: lost))")
        try await withTimeout(30, "reconnect after the restart") {
            try await transport.reconnect(reset: true, timeout: 20)
        }
        #expect(try await transport.transmit(echo).data == [7, 7, 7])
        try await transport.disconnect()
        try await second.remove()

        // 2. A wait across a restart: connectWhenPresented establishes a new context once pcscd is back.
        context = try await PCSCContext.establish()
        try await waitAbsent(context)
        let reader = self.reader
        let waiting = Task { try await PCSCCardTransport.connectWhenPresented(readerQuery: reader, timeout: 30) }
        try await Task.sleep(for: .milliseconds(500))
        try await PCSCDaemon.restart()
        let third = ServedCard(TestCard(), connectTimeout: 15)
        defer { third.bridge.stop() }
        let again = try await withTimeout(40, "connectWhenPresented across the restart") { try await waiting.value }
        #expect(try await again.transmit(echo).data == [7, 7, 7])
        try await again.disconnect()
        try await third.remove()
    }
}

/// Stops the running pcscd (its pid file) and starts a new one, detached, as the machine's own
/// (`/usr/sbin/pcscd --foreground`, log in /tmp/pcscd.log). Only for `pcscdRestart`.
enum PCSCDaemon {
    static func restart() async throws {
        let pidText = (try? String(contentsOfFile: "/run/pcscd/pcscd.pid", encoding: .utf8)) ?? ""
        if let pid = Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1 {
            kill(pid, SIGTERM)
            // pcscd with the vpcd driver may ignore SIGTERM: 5 s, then SIGKILL
            if !(await eventually(5) { kill(pid, 0) != 0 }) { kill(pid, SIGKILL) }
            _ = await eventually(5) { kill(pid, 0) != 0 }
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "setsid \(PCSCTestEnvironment.pcscdPath) --foreground >>/tmp/pcscd.log 2>&1 </dev/null &"]
        try p.run()
        p.waitUntilExit()
        let up = await eventually(10) {
            (try? await PCSCContext.establish().readerNames().contains(PCSCTestEnvironment.readerName)) ?? false
        }
        if !up {
            throw TimedOut(what: "pcscd listing \(PCSCTestEnvironment.readerName) after the restart", seconds: 10)
        }
    }
}
