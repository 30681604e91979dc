import Foundation
import Glibc

/// The real PC/SC stack for the integration tests: pcscd (found running, or started here as a
/// child with `--foreground --auto-exit`) with vsmartcard's vpcd driver, whose first slot
/// "Virtual PCD 00 00" listens on localhost:35963.
///
/// When something is missing the integration suite is skipped, and `reason` says why (it is
/// printed and shown as the skip comment: never a silent skip).
public enum PCSCTestEnvironment {
    public static let readerName = "Virtual PCD 00 00"
    public static let vpcdPort: UInt16 = 35963
    public static let pcscdPath = "/usr/sbin/pcscd"
    public static let vpcdDriver = "/usr/lib/pcsc/drivers/serial/libifdvpcd.so"
    public static let socketPath = "/run/pcscd/pcscd.comm"

    /// nil when the stack is usable; else why not.
    public static let unavailableReason: String? = {
        let reason = prepare()
        if let reason {
            FileHandle.standardError.write(Data("SKIPPING the pcscd/vpcd integration tests: \(reason)\n".utf8))
        }
        return reason
    }()

    public static var isAvailable: Bool { unavailableReason == nil }

    private static func prepare() -> String? {
        if ProcessInfo.processInfo.environment["EMRTD_SKIP_PCSCD_TESTS"] != nil {
            return "EMRTD_SKIP_PCSCD_TESTS is set"
        }
        guard FileManager.default.fileExists(atPath: vpcdDriver) else {
            return "the vpcd driver (\(vpcdDriver), Debian package vsmartcard-vpcd) is not installed"
        }
        if !pcscdAnswers() {
            guard FileManager.default.isExecutableFile(atPath: pcscdPath) else {
                return "pcscd is not running and \(pcscdPath) (Debian package pcscd) is not installed"
            }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: pcscdPath)
            p.arguments = ["--foreground", "--auto-exit"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            do { try p.run() } catch { return "could not start \(pcscdPath): \(error)" }
            FileHandle.standardError.write(
                Data("started pcscd (pid \(p.processIdentifier)) for the integration tests\n".utf8))
            var waited = 0
            while !pcscdAnswers() {
                if waited >= 50 || !p.isRunning {
                    return "pcscd did not come up (is another pcscd holding \(socketPath)? are you allowed to run it?)"
                }
                usleep(100_000)
                waited += 1
            }
            child = p
            atexit { PCSCTestEnvironment.child?.terminate() }
        }
        return nil
    }

    nonisolated(unsafe) static var child: Process?

    /// Whether something accepts connections on pcscd's socket.
    public static func pcscdAnswers() -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8CString)
        withUnsafeMutableBytes(of: &addr.sun_path) { dst in
            for (i, c) in path.enumerated() where i < dst.count { dst[i] = UInt8(bitPattern: c) }
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return rc == 0
    }
}

public struct TimedOut: Error, CustomStringConvertible {
    public let what: String
    public let seconds: Double
    public init(what: String, seconds: Double) {
        self.what = what
        self.seconds = seconds
    }
    public var description: String { "timed out after \(seconds) s: \(what)" }
}

/// Runs `operation`, failing with `TimedOut` after `seconds` (the operation is cancelled, which
/// for PC/SC waits means SCardCancel). Every wait in the integration tests is bounded by this.
public func withTimeout<T: Sendable>(
    _ seconds: Double, _ what: String,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw TimedOut(what: what, seconds: seconds)
        }
        return value
    }
}

/// Polls `condition` every 50 ms for at most `seconds`.
public func eventually(_ seconds: Double, _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return await condition()
}

/// An advisory lock on vpcd slot 0 across processes (`flock` on /tmp/emrtd-vpcd-35963.lock), so two
/// test runs on one machine (two worktrees, CI and a developer) take turns instead of both serving
/// a card on the same slot. `emrtd simulate`-based tests should take the same lock.
public struct VPCDSlotLock: ~Copyable {
    public static let path = "/tmp/emrtd-vpcd-\(PCSCTestEnvironment.vpcdPort).lock"
    private let fd: Int32

    /// Waits (bounded: 15 minutes, since every pcscd suite of a parallel run takes the slot in turn and the browser
    /// test alone holds it for minutes) for the slot.
    public static func acquire(timeout: Double = 900) async throws -> VPCDSlotLock {
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw TimedOut(what: "open \(path)", seconds: 0) }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if ContinuousClock.now >= deadline {
                close(fd)
                throw TimedOut(what: "vpcd slot lock \(path) (another test run holds it)", seconds: timeout)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return VPCDSlotLock(fd: fd)
    }

    deinit {
        _ = flock(fd, LOCK_UN)
        close(fd)
    }
}
