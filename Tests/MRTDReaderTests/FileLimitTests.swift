import Foundation
import ISO7816
import MRTDDocument
import MRTDReader
import MRTDTestSupport
import Testing

/// The reader refuses a file whose declared length is above its kind's cap (`LDSLimits`) after the first
/// chunk, before reading the rest (an EF.COM tag list of 1 MB cost 8–18 s on a live read).
@Suite struct FileLimitTests {
    /// `tag` with a declared length of `length` and filler contents.
    static func file(_ tag: UInt8, length: Int) -> [UInt8] {
        [tag, 0x83, UInt8(length >> 16), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            + (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ 1) }
    }

    func read(_ kind: LDSFile, _ card: QuirkyCard) async throws -> (PartialFile, FileReadOutcome) {
        let t = LocalCardTransport(emulator: card, capabilities: .extended)
        var reader = FileReader(useSFI: true, chunk: ChunkPolicy(fixed: 223, extended: false))
        var p = PartialFile(file: kind)
        var selected = false
        let outcome = try await reader.read(&p, channel: .plain(t), selected: &selected)
        return (p, outcome)
    }

    @Test func megabyteCOMIsRefusedAfterItsFirstChunk() async throws {
        let card = QuirkyCard(file: Self.file(0x60, length: 1 << 20), quirks: .init())
        do {
            _ = try await read(.com, card)
            Issue.record("a 1 MB EF.COM was read")
        } catch let e as ReadError {
            #expect("\(e)".contains("LDSLimits.maxCOMBytes"), "\(e)")
        }
        #expect(card.commands.count == 1)
    }

    @Test func oversizedDataGroupsAreRefusedAndGenuineSizesRead() async throws {
        let big = QuirkyCard(file: Self.file(0x6B, length: 10 << 20), quirks: .init())
        await #expect(throws: ReadError.self) { try await read(.dg11, big) }
        #expect(big.commands.count == 1)
        let sod = QuirkyCard(file: Self.file(0x77, length: (16 << 20) - 16), quirks: .init())
        await #expect(throws: ReadError.self) { try await read(.sod, sod) }
        #expect(sod.commands.count == 1)
        // a DG2 of 1 MB (a large face image) is within its cap and read whole
        let dg2 = QuirkyCard(file: Self.file(0x75, length: 1 << 20), quirks: .init(maxNe: 65536))
        let t = LocalCardTransport(emulator: dg2, capabilities: .extended)
        var reader = FileReader(useSFI: true, chunk: ChunkPolicy(fixed: 65536, extended: true))
        var p = PartialFile(file: .dg2)
        var selected = false
        #expect(try await reader.read(&p, channel: .plain(t), selected: &selected) == .complete)
        #expect(p.bytes == dg2.file)
    }
}

/// An evidence bundle is read like trust material: regular files only, each within its kind's cap, in
/// bounded reads (a FIFO named EF.SOD.bin blocked `emrtd verify` forever; a sparse DG2.bin reporting
/// gigabytes would have been allocated whole).
@Suite struct BundleLimitTests {
    static func bundle() throws -> URL {
        TemporaryFolder.make("reader-limits")
    }

    @Test(.timeLimit(.minutes(5))) func fifoInABundleIsRefusedWithoutBlocking() throws {
        let dir = try Self.bundle()
        defer { try? FileManager.default.removeItem(at: dir) }
        try #require(mkfifo(dir.appendingPathComponent(LDSFile.sod.bundleFileName).path, 0o600) == 0)
        do {
            _ = try EvidenceBundle.load(from: dir)
            Issue.record("a FIFO was read as EF.SOD")
        } catch {
            #expect("\(error)".contains("is a FIFO"), "\(error)")
        }
    }

    @Test func sparseDataGroupInABundleIsRefusedFromItsSize() throws {
        let dir = try Self.bundle()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(LDSFile.dg2.bundleFileName).path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let fd = open(path, O_WRONLY)
        try #require(fd >= 0)
        try #require(ftruncate(fd, off_t(64) << 30) == 0)
        close(fd)
        do {
            _ = try EvidenceBundle.load(from: dir)
            Issue.record("a 64 GiB DG2 was read")
        } catch {
            #expect("\(error)".contains("LDSLimits.maxLargeDataGroupBytes"), "\(error)")
        }
    }
}
