import CProcessShims
import EMRTDCLI
import Glibc

// No core dump, and no ptrace or /proc/PID/mem access by other processes of the same user: a dump taken mid-read
// would hold the MRZ and live session keys (docs/reliability.md, "Core dumps"). EMRTD_ALLOW_CORE_DUMPS=1 keeps
// both, for debugging.
if getenv("EMRTD_ALLOW_CORE_DUMPS").map({ String(cString: $0) }) != "1" {
    var none = rlimit(rlim_cur: 0, rlim_max: 0)
    if setrlimit(Int32(RLIMIT_CORE.rawValue), &none) != 0 || emrtd_set_dumpable(0) != 0 {
        let warning = "emrtd: warning: core dumps could not be disabled (setrlimit/prctl failed)\n"
        _ = warning.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}

// `emrtd serve` keeps running with many people's data passing through: every heap block it frees is overwritten
// (glibc's malloc perturbation, with the per-thread cache off so that no free skips it), so that a forgotten read
// leaves no copy of the MRZ behind (docs/service.md, "Privacy"). The allocator reads these settings only at
// start: the process runs itself again with them (same pid, same arguments) unless GLIBC_TUNABLES already names a
// perturbation (the operator's own choice).
if CommandLine.arguments.dropFirst().first == "serve" {
    let tunables = getenv("GLIBC_TUNABLES").map { String(cString: $0) } ?? ""
    if !tunables.contains("glibc.malloc.perturb=") {
        let wipe = "glibc.malloc.perturb=165:glibc.malloc.tcache_count=0"
        setenv("GLIBC_TUNABLES", tunables.isEmpty ? wipe : tunables + ":" + wipe, 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        let warning = "emrtd: warning: cannot restart with freed memory overwritten (execv failed)\n"
        _ = warning.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}
await EMRTDCommand.main()
