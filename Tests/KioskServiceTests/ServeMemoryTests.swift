import Foundation
import Glibc
import MRTDTestSupport
import Testing

/// After DELETE, no copy of the MRZ is left anywhere in `emrtd serve`'s memory (docs/service.md, "Privacy"): the
/// test scans every readable region of the running service (/proc/PID/maps and /proc/PID/mem) for a document
/// number generated for this run — in the request body, the chip's DG1, the report — and finds it before the
/// DELETE (so the scan sees what it looks for) and nowhere after.
@Suite(
    // the limit includes the wait for the vpcd slot, which the other pcscd suites hold in turn
    "emrtd serve leaves no MRZ in memory", .serialized, .timeLimit(.minutes(20)),
    .enabled(
        if: PCSCTestEnvironment.isAvailable,
        Comment(rawValue: PCSCTestEnvironment.unavailableReason ?? "pcscd/vpcd available")))
struct ServeMemoryTests {
    /// ICAO 9303-3 §4.9 check digit.
    static func checkDigit(_ s: Substring) -> Character {
        let weights = [7, 3, 1]
        var sum = 0
        for (i, c) in s.enumerated() {
            let v: Int
            if let d = c.wholeNumberValue {
                v = d
            } else if let a = c.asciiValue, c.isUppercase {
                v = Int(a) - 55
            } else {
                v = 0
            }
            sum += v * weights[i % 3]
        }
        return Character(String(sum % 10))
    }

    /// The saved document with a document number of this run: in DG1 (its SOD hash no longer matches: the verdict
    /// is `rejected`, which is beside the point here) and in the chip's access data.
    static func uniqueDocument(_ d: Harness.Document) throws -> (document: Harness.Document, number: String) {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789")
        let number = "Q" + String((0..<8).map { _ in alphabet.randomElement()! })
        let oldMRZ = d.mrz
        var line2 = Array(oldMRZ.dropFirst(44))
        line2.replaceSubrange(0..<9, with: Array(number))
        line2[9] = checkDigit(Substring(String(line2[0..<9])))
        let composite = String(line2[0..<10]) + String(line2[13..<20]) + String(line2[21..<43])
        line2[43] = checkDigit(Substring(composite))
        let newMRZ = String(oldMRZ.prefix(44)) + String(line2)
        let folder = URL(fileURLWithPath: d.folder)
        let dg1URL = folder.appendingPathComponent("DG1.bin")
        let dg1 = [UInt8](try Data(contentsOf: dg1URL))
        let old = Array(oldMRZ.utf8)
        guard let at = (0...(dg1.count - old.count)).first(where: { Array(dg1[$0..<($0 + old.count)]) == old }) else {
            throw Failure("DG1 does not hold the MRZ")
        }
        var patched = dg1
        patched.replaceSubrange(at..<(at + old.count), with: Array(newMRZ.utf8))
        try Data(patched).write(to: dg1URL)
        let profileURL = folder.appendingPathComponent("profile.json")
        var profile = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: profileURL)) as? [String: Any])
        profile["mrz"] = newMRZ
        profile["documentNumber"] = number
        try JSONSerialization.data(withJSONObject: profile).write(to: profileURL)
        var out = d
        out.mrz = newMRZ
        return (out, number)
    }

    /// Where `needle` occurs in the readable memory of process `pid`.
    static func occurrences(of needle: [UInt8], in pid: Int32) throws -> [String] {
        let maps = try String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)
        let fd = open("/proc/\(pid)/mem", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure("cannot open /proc/\(pid)/mem: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var found: [String] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("r") else { continue }
            let name = fields.count > 5 ? String(fields[5]) : ""
            guard name != "[vvar]" && name != "[vsyscall]" else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt64($0, radix: 16) }
            guard bounds.count == 2 else { continue }
            // read in chunks overlapping by the needle's length
            var offset = bounds[0]
            while offset < bounds[1] {
                let n = Int(min(UInt64(buffer.count), bounds[1] - offset))
                let at = off_t(Int64(bitPattern: offset))
                let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, n, at) }
                guard got > 0 else { break }
                if got >= needle.count {
                    for i in 0...(got - needle.count) where buffer[i] == needle[0] {
                        if buffer[i..<(i + needle.count)].elementsEqual(needle) {
                            found.append("0x\(String(offset + UInt64(i), radix: 16)) \(name)")
                        }
                    }
                }
                if UInt64(got) < UInt64(n) { break }
                offset += UInt64(max(got - needle.count + 1, 1))
            }
        }
        return found
    }

    @Test func noCopyOfTheMRZIsLeftAfterDelete() async throws {
        guard geteuid() == 0 else {
            // /proc/PID/mem of a process that is not dumpable (docs/reliability.md, "Core dumps") is root's
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("the memory scan needs root (the service is not dumpable)")
            } else {
                print("ServeMemoryTests skipped: the memory scan needs root")
            }
            return
        }
        let slot = try await VPCDSlotLock.acquire()
        defer { _ = slot }
        let dir = Harness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (d, number) = try Self.uniqueDocument(try Harness.document("bac", in: dir))
        let service = try Service(dir: dir, trust: d.trust)
        defer { service.stop() }
        let sim = try Harness.simulate(d)
        defer { Harness.stop(sim) }
        let id = try service.startRead(["reader": Harness.reader0, "access": ["mrz": d.mrz], "waitSeconds": 20])
        let done = try await service.waitFinished(id)
        #expect(done["status"] as? String == "done", "\(done)")
        let pid = service.process.processIdentifier
        let needle = Array(number.utf8)
        let before = try Self.occurrences(of: needle, in: pid)
        #expect(!before.isEmpty, "the scan does not see the report the service keeps")

        let r = try service.http.request("DELETE", "/v1/reads/\(id)", token: service.token)
        #expect(r.status == 204)
        try await Task.sleep(for: .milliseconds(300))
        let after = try Self.occurrences(of: needle, in: pid)
        #expect(after.isEmpty, "\(after.count) copies of the document number are left: \(after.prefix(20))")
        // nor in UTF-16 (Foundation strings)
        let utf16 = number.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(try Self.occurrences(of: utf16, in: pid).isEmpty)
    }
}
