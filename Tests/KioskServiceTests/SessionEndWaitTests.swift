import Foundation
import Testing

@testable import KioskService

/// The next read on a reader waits for the previous card session's end (its disconnect resets the card), but a
/// disconnect that hangs must not block the reader for good (`KioskService.wait(for:atMost:)`).
@Suite struct SessionEndWaitTests {
    @Test func aSessionEndThatComesIsWaitedFor() async {
        let quick = Task<Void, Never> { try? await Task.sleep(for: .milliseconds(20)) }
        #expect(await KioskService.wait(for: quick, atMost: 30))
    }

    @Test func aSessionEndThatHangsIsGivenUpOn() async {
        // stands for an SCardDisconnect that never returns
        let hung = Task<Void, Never> { try? await Task.sleep(for: .seconds(3600)) }
        defer { hung.cancel() }
        let started = ContinuousClock.now
        #expect(await KioskService.wait(for: hung, atMost: 0.2) == false)
        // a bound, not a timing: without the limit this would wait an hour
        #expect(ContinuousClock.now - started < .seconds(60))
    }
}
