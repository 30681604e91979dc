import ISO7816
import MRTDDocument
import MRTDReader
import Synchronization
import Testing

/// A plain (no secure messaging) file-serving card with configurable quirks, to pin FileReader's
/// behaviour on status words real chips send.
final class QuirkyCard: CardEmulator {
    struct Quirks {
        var maxNe = 256  // larger Ne → 6700
        var wrongLeExact: Int? = nil  // Ne other than this → 6Cxx
        var refuseSFI = false  // SFI reads → 6A86
        var maxAnswer = Int.max  // returns at most this many bytes with 9000
    }
    let file: [UInt8]
    let quirks: Quirks
    private let selected = Mutex(false)
    private let log = Mutex<[[UInt8]]>([])
    init(file: [UInt8], quirks: Quirks) {
        self.file = file
        self.quirks = quirks
    }
    var atr: [UInt8] { [0x3B, 0x00] }
    func powerOn() {}
    func powerOff() {}
    func reset() {}
    var commands: [[UInt8]] { log.withLock { $0 } }

    func process(_ bytes: [UInt8]) -> [UInt8] {
        log.withLock { $0.append(bytes) }
        guard let c = try? CommandAPDU(bytes: bytes) else { return [0x67, 0x00] }
        switch c.ins {
        case 0xA4:
            selected.withLock { $0 = true }
            return [0x90, 0x00]
        case 0xB0, 0xB1:
            var offset: Int
            if c.ins == 0xB1 {
                guard c.data.count >= 3, c.data[0] == 0x54 else { return [0x6A, 0x80] }
                offset = c.data[2...].reduce(0) { $0 << 8 | Int($1) }
            } else if c.p1 & 0x80 != 0 {
                if quirks.refuseSFI { return [0x6A, 0x86] }
                selected.withLock { $0 = true }
                offset = Int(c.p2)
            } else {
                guard selected.withLock({ $0 }) else { return [0x69, 0x86] }
                offset = Int(c.p1) << 8 | Int(c.p2)
            }
            let ne = c.ne ?? 0
            if ne > quirks.maxNe { return [0x67, 0x00] }
            if let exact = quirks.wrongLeExact, ne != exact, ne > exact { return [0x6C, UInt8(exact)] }
            guard offset < file.count else { return [0x6B, 0x00] }
            let wrap = c.ins == 0xB1 ? 4 : 0
            let n = min(file.count - offset, ne - wrap, quirks.maxAnswer)
            var data = Array(file[offset..<(offset + n)])
            if c.ins == 0xB1 { data = [0x53, 0x82, UInt8(n >> 8), UInt8(n & 0xFF)] + data }
            let eof = offset + n == file.count && n < ne - wrap
            return data + (eof ? [0x62, 0x82] : [0x90, 0x00])
        default:
            return [0x6D, 0x00]
        }
    }
}

@Suite struct FileReaderTests {
    /// A DG1-tagged file of `size` bytes (61 82 LL LL + filler).
    static func file(_ size: Int) -> [UInt8] {
        let body = (0..<(size - 4)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        return [0x61, 0x82, UInt8((size - 4) >> 8), UInt8((size - 4) & 0xFF)] + body
    }

    func read(_ card: QuirkyCard, chunk: ChunkPolicy, sfi: Bool = true) async throws -> (PartialFile, FileReadOutcome) {
        let t = LocalCardTransport(emulator: card, capabilities: .extended)
        var reader = FileReader(useSFI: sfi, chunk: chunk)
        var p = PartialFile(file: .dg1)
        var selected = false
        let outcome = try await reader.read(&p, channel: .plain(t), selected: &selected)
        return (p, outcome)
    }

    @Test func wrongLengthStepsTheChunkDown() async throws {
        let card = QuirkyCard(file: Self.file(1000), quirks: .init(maxNe: 128))
        let (p, outcome) = try await read(card, chunk: ChunkPolicy(fixed: 256, extended: false))
        #expect(outcome == .complete && p.bytes == card.file)
        // 256 refused once, then 223 refused, then 128-byte chunks
        #expect(p.apdus == 2 + (1000 + 127) / 128)
    }

    @Test func exactLengthFromSW6C() async throws {
        let card = QuirkyCard(file: Self.file(500), quirks: .init(wrongLeExact: 100))
        let (p, outcome) = try await read(card, chunk: ChunkPolicy(fixed: 223, extended: false))
        #expect(outcome == .complete && p.bytes == card.file)
        #expect(p.apdus == 1 + 5)
    }

    @Test func refusedShortFileIdentifierFallsBackToSelect() async throws {
        let card = QuirkyCard(file: Self.file(300), quirks: .init(refuseSFI: true))
        let (p, outcome) = try await read(card, chunk: ChunkPolicy(fixed: 223, extended: false))
        #expect(outcome == .complete && p.bytes == card.file)
        #expect(card.commands.contains { $0[1] == 0xA4 })
    }

    @Test func shortAnswersAreFollowedWithoutShrinking() async throws {
        let card = QuirkyCard(file: Self.file(1000), quirks: .init(maxAnswer: 100))
        let (p, outcome) = try await read(card, chunk: ChunkPolicy(fixed: 223, extended: false))
        #expect(outcome == .complete && p.bytes == card.file)
        // every command asks for the full chunk while at least that much remains (offsets 0…700)
        #expect(card.commands.count == 10)
        #expect(card.commands.prefix(8).allSatisfy { $0.last == 223 })
        #expect(card.commands[8].last == 200 && card.commands[9].last == 100)
    }

    @Test func offsetsAbove32767UseOddINS() async throws {
        let card = QuirkyCard(file: Self.file(40_000), quirks: .init(maxNe: 65536))
        let (p, outcome) = try await read(card, chunk: ChunkPolicy(fixed: 8192, extended: true))
        #expect(outcome == .complete && p.bytes == card.file)
        #expect(card.commands.contains { $0[1] == 0xB1 })
        #expect(!card.commands.contains { $0[1] == 0xB0 && (Int($0[2] & 0x7F) << 8 | Int($0[3])) > 0x7FFF })
    }

    @Test func aDeclaredLengthBeyondTheFileEndsWithAFailureNotWrongBytes() async throws {
        var f = Self.file(300)
        f[2] = 0x02  // declares 0x022C bytes, the card has 300
        let card = QuirkyCard(file: f, quirks: .init())
        let (p, outcome) = try await read(card, chunk: ChunkPolicy(fixed: 223, extended: false))
        #expect(outcome != .complete)
        #expect(!p.isComplete)
    }

    @Test(arguments: [
        (StatusWord(rawValue: 0x6982), FileReadOutcome.accessDenied), (StatusWord(rawValue: 0x6A82), .notFound),
    ])
    func refusalsAreOutcomes(sw: StatusWord, expected: FileReadOutcome) async throws {
        final class Refusing: CardEmulator {
            let sw: StatusWord
            init(_ sw: StatusWord) { self.sw = sw }
            var atr: [UInt8] { [0x3B, 0x00] }
            func powerOn() {}
            func powerOff() {}
            func reset() {}
            func process(_ command: [UInt8]) -> [UInt8] { [sw.sw1, sw.sw2] }
        }
        let t = LocalCardTransport(emulator: Refusing(sw), capabilities: .shortOnly)
        var reader = FileReader(useSFI: true, chunk: ChunkPolicy(fixed: 223, extended: false))
        var p = PartialFile(file: .dg3)
        var selected = false
        #expect(try await reader.read(&p, channel: .plain(t), selected: &selected) == expected)
    }
}
