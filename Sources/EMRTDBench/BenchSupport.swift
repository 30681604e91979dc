import Foundation
import Glibc
import ISO7816
import Synchronization

/// Clocks and process facts the benchmark reads (Linux).
enum BenchClock {
    /// CPU time of the whole process in nanoseconds (CLOCK_PROCESS_CPUTIME_ID): what the engine (and, inside
    /// `MeteredChip`, the virtual chip) spends, unaffected by other processes competing for the cores.
    static func cpuNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// What one `cpuNanoseconds()` call costs on this machine, in nanoseconds: on a virtual machine the CPU
    /// clocks are system calls (≈ 1–2 µs), and the benchmark reads one around every APDU it hands the chip.
    /// That instrumentation is not the engine's work, so each phase has the reads that land in it subtracted
    /// (`PhaseSample.engineNanoseconds`). Calibrated once: the smallest per-call average over 7 batches of
    /// 2,000 calls (the conservative choice: less is subtracted).
    static let cpuClockReadNanoseconds: Double = {
        var best = Double.infinity
        for _ in 0..<7 {
            let n = 2000
            let start = cpuNanoseconds()
            for _ in 0..<n { _ = cpuNanoseconds() }  // a system call: not optimised away
            let end = cpuNanoseconds()
            best = min(best, Double(end &- start) / Double(n + 1))
        }
        return best.isFinite ? best : 0
    }()

    /// Monotonic wall-clock nanoseconds (for child processes such as the openssl command).
    static func wallNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// Resident memory from /proc/self/status (proc(5)): VmRSS now, VmHWM the peak.
enum ProcessMemory {
    static func kilobytes(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter(\.isNumber)
            return Int(digits)
        }
        return nil
    }

    static var rssMB: Double? { kilobytes("VmRSS").map { Double($0) / 1024 } }
    static var peakMB: Double? { kilobytes("VmHWM").map { Double($0) / 1024 } }

    /// Resets VmHWM to the current RSS (writing "5" to /proc/self/clear_refs, Linux ≥ 4.0), so that the
    /// peak of one workload can be read on its own. Returns false when the kernel refuses.
    @discardableResult
    static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }
}

/// Counters of what crossed the link and what the chip spent, cumulative since the chip was made.
struct ChipCounters: Sendable, Hashable {
    var apdus = 0
    var bytesSent = 0
    var bytesReceived = 0
    /// CPU nanoseconds spent inside `VirtualChip.process`.
    var chipNanoseconds: UInt64 = 0
    /// APDUs with a secure-messaging CLA (bits b4 b3 of CLA set, ISO/IEC 7816-4 §5.4.1).
    var smAPDUs = 0
    /// Bytes a secure-messaging MAC runs over on the terminal side (protected command and response, approx.).
    var smMACBytes = 0
    /// Bytes enciphered or deciphered by the terminal (DO'85'/'87' contents, approx.) and how many calls.
    var smCipherBytes = 0
    var smCipherCalls = 0
    /// SELECT commands (INS A4).
    var selects = 0

    static func - (a: ChipCounters, b: ChipCounters) -> ChipCounters {
        ChipCounters(
            apdus: a.apdus - b.apdus, bytesSent: a.bytesSent - b.bytesSent,
            bytesReceived: a.bytesReceived - b.bytesReceived,
            chipNanoseconds: a.chipNanoseconds &- b.chipNanoseconds, smAPDUs: a.smAPDUs - b.smAPDUs,
            smMACBytes: a.smMACBytes - b.smMACBytes, smCipherBytes: a.smCipherBytes - b.smCipherBytes,
            smCipherCalls: a.smCipherCalls - b.smCipherCalls, selects: a.selects - b.selects)
    }

    static func + (a: ChipCounters, b: ChipCounters) -> ChipCounters {
        ChipCounters(
            apdus: a.apdus + b.apdus, bytesSent: a.bytesSent + b.bytesSent,
            bytesReceived: a.bytesReceived + b.bytesReceived,
            chipNanoseconds: a.chipNanoseconds &+ b.chipNanoseconds, smAPDUs: a.smAPDUs + b.smAPDUs,
            smMACBytes: a.smMACBytes + b.smMACBytes, smCipherBytes: a.smCipherBytes + b.smCipherBytes,
            smCipherCalls: a.smCipherCalls + b.smCipherCalls, selects: a.selects + b.selects)
    }
}

/// A mark in the timeline of one read: the CPU clock and the chip counters when a phase began.
struct PhaseMark: Sendable {
    var label: String
    var cpu: UInt64
    var counters: ChipCounters
}

/// A `CardEmulator` in front of the virtual chip that forwards every call and accounts for the APDUs, the
/// bytes each way and the CPU time spent inside the chip, so that the benchmark can report the chip's
/// own work separately from the engine's. It also keeps the timeline of phase marks (set from
/// the reader's progress events) and cuts the SELECT of the eMRTD application out as a phase of its own.
final class MeteredChip: CardEmulator {
    private struct State {
        var counters = ChipCounters()
        var marks: [PhaseMark] = []
        var current = "start"
    }
    private let inner: any CardEmulator
    private let state = Mutex(State())

    init(_ inner: any CardEmulator) { self.inner = inner }

    var atr: [UInt8] { inner.atr }
    func powerOn() { inner.powerOn() }
    func powerOff() { inner.powerOff() }
    func reset() { inner.reset() }

    var snapshot: ChipCounters { state.withLock { $0.counters } }
    var marks: [PhaseMark] { state.withLock { $0.marks } }

    /// Starts a phase now.
    func mark(_ label: String) {
        let cpu = BenchClock.cpuNanoseconds()
        state.withLock { s in
            s.marks.append(PhaseMark(label: label, cpu: cpu, counters: s.counters))
            s.current = label
        }
    }

    func process(_ command: [UInt8]) -> [UInt8] {
        // Everything this meter does happens between the two clock reads, so its own bookkeeping is charged
        // to the chip column (reported apart), never to the engine.
        let start = BenchClock.cpuNanoseconds()
        // SELECT by DF name (the eMRTD application): a phase of its own, then back to the phase it interrupted
        let selectApplication = command.count >= 4 && command[1] == 0xA4 && command[2] == 0x04
        if selectApplication {
            state.withLock { s in
                s.marks.append(PhaseMark(label: "select-application", cpu: start, counters: s.counters))
            }
        }
        let response = inner.process(command)
        let sm = command.count >= 4 && command[0] & 0x0C == 0x0C
        var cipherBytes = 0
        var cipherCalls = 0
        if sm {
            // command: DO'85'/'87' first in the data field when there is a payload
            if command.count > 6 {
                let extendedLc = command[4] == 0 && command.count > 7
                let first = extendedLc ? command[7] : command[5]
                let lc = extendedLc ? Int(command[5]) << 8 | Int(command[6]) : Int(command[4])
                if first == 0x85 || first == 0x87 {
                    cipherBytes += max(0, lc - 16)
                    cipherCalls += 1
                }
            }
            // response: DO'87' || DO'99' || DO'8E' || SW
            if response.first == 0x87 {
                cipherBytes += max(0, response.count - 20)
                cipherCalls += 1
            }
        }
        state.withLock { s in
            s.counters.apdus += 1
            s.counters.bytesSent += command.count
            s.counters.bytesReceived += response.count
            if command.count >= 2 && command[1] == 0xA4 { s.counters.selects += 1 }
            if sm {
                s.counters.smAPDUs += 1
                s.counters.smMACBytes += command.count + response.count
                s.counters.smCipherBytes += cipherBytes
                s.counters.smCipherCalls += cipherCalls
            }
        }
        let end = BenchClock.cpuNanoseconds()
        state.withLock { s in
            s.counters.chipNanoseconds &+= end &- start
            if selectApplication { s.marks.append(PhaseMark(label: s.current, cpu: end, counters: s.counters)) }
        }
        return response
    }
}

/// Median and spread of a sample.
struct Spread: Sendable {
    var median: Double
    var min: Double
    var max: Double

    init(_ values: [Double]) {
        let s = values.sorted()
        if s.isEmpty {
            median = 0
            min = 0
            max = 0
            return
        }
        median = s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        min = s.first!
        max = s.last!
    }
}

/// Rounds for printing and JSON (3 decimals).
func r3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
