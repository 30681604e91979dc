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
await EMRTDCommand.main()
