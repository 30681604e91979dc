import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `emrtd` starts with core dumps off (RLIMIT_CORE 0) and not dumpable (PR_SET_DUMPABLE 0): a dump or a
/// /proc/PID/mem read mid-read would hold the MRZ and the session keys (docs/reliability.md, "Core dumps").
/// Seen from outside, in a child `emrtd read` waiting for the MRZ on standard input: its core limit in
/// /proc/PID/limits, and the owner of /proc/PID/mem, which the kernel sets to root for a process that is not
/// dumpable (the child runs as another user — nobody — so that the owner tells).
@Suite struct CoreDumpTests {
    struct Observed {
        var coreLimit: String
        var memOwner: uid_t
        var childUid: uid_t
    }

    /// Starts `emrtd read --mrz -` (it waits for standard input), observes it, and ends it.
    static func observe(environment extra: [String: String]) throws -> Observed? {
        let emrtd = Emrtd.executable.path
        let p = Process()
        var env = ProcessInfo.processInfo.environment
        for (k, v) in extra { env[k] = v }
        env["EMRTD_ALLOW_CORE_DUMPS"] = extra["EMRTD_ALLOW_CORE_DUMPS"]
        p.environment = env
        let asRoot = geteuid() == 0
        if asRoot {
            let setpriv = "/usr/bin/setpriv"
            guard FileManager.default.isExecutableFile(atPath: setpriv) else {
                if ProcessInfo.processInfo.environment["CI"] == "true" {
                    Issue.record("setpriv (util-linux) is missing: needed to run the child as another user")
                } else {
                    print("CoreDumpTests skipped: /usr/bin/setpriv is missing")
                }
                return nil
            }
            p.executableURL = URL(fileURLWithPath: setpriv)
            p.arguments = [
                "--reuid=65534", "--regid=65534", "--clear-groups", emrtd, "read", "--virtual", "bac", "--mrz", "-",
                "--quiet",
            ]
        } else {
            p.executableURL = URL(fileURLWithPath: emrtd)
            p.arguments = ["read", "--virtual", "bac", "--mrz", "-", "--quiet"]
        }
        let input = Pipe()
        p.standardInput = input
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer {
            p.terminate()
            try? input.fileHandleForWriting.close()
            p.waitUntilExit()
        }
        let pid = p.processIdentifier
        // setpriv execs emrtd in the same process: wait until it is emrtd that runs
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
            if exe.hasSuffix("/emrtd") { break }
            usleep(20_000)
        }
        usleep(200_000)  // past main.swift's first lines
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let core = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        var st = stat()
        #expect(stat("/proc/\(pid)/mem", &st) == 0)
        #expect(p.isRunning, "emrtd read did not wait for the MRZ")
        return Observed(
            coreLimit: core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2).joined(
                separator: " "),
            memOwner: st.st_uid, childUid: asRoot ? 65534 : geteuid())
    }

    @Test func coreDumpsAreOffAndTheProcessIsNotDumpable() throws {
        guard let o = try Self.observe(environment: [:]) else { return }
        #expect(o.coreLimit == "0 0", "core limit: \(o.coreLimit)")
        #expect(o.memOwner == 0 && o.childUid != 0, "/proc/PID/mem is owned by \(o.memOwner)")
    }

    /// The opt-out for debugging keeps the inherited limit and the process dumpable.
    @Test func theOptOutKeepsThem() throws {
        guard let o = try Self.observe(environment: ["EMRTD_ALLOW_CORE_DUMPS": "1"]) else { return }
        #expect(o.memOwner == o.childUid, "/proc/PID/mem is owned by \(o.memOwner)")
        var inherited = rlimit()
        getrlimit(Int32(RLIMIT_CORE.rawValue), &inherited)
        #expect(o.coreLimit != "0 0" || inherited.rlim_max == 0, "core limit: \(o.coreLimit)")
    }
}
