import Dispatch
import DocumentGenerator
import Foundation
import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDReader
import Synchronization
import VirtualChip

/// The reader against a chip whose answers are the input: `DocumentReader.read()` over a scripted transport that
/// answers each command with the next response APDU of the input, whatever the command was. The access key and the
/// reader's random bytes are fixed, so a run is deterministic; the script gives at most `maxAnswers` answers and then
/// fails like a lost card, and the read may not resume, so every run ends.
///
/// Input format: answers one after another, each a length byte (0xFF: a two-byte big-endian length follows) and that
/// many bytes, data then status word; an answer shorter than two bytes is a status word 6F 00.
enum ChipAnswersTarget {
    static let maxAnswers = 64
    /// The access key every run uses (invented Utopia specimen data); the seeds are reads of a chip with this key.
    static let documentNumber = "UTO123456"
    static let dateOfBirth = "800101"
    static let dateOfExpiry = "350101"

    static func run(_ bytes: [UInt8]) {
        let transport = ScriptedTransport(answers: answers(bytes))
        read(over: transport)
    }

    /// One read over `transport` with the fixed key and randomness, waited for on this (libFuzzer's) thread.
    @discardableResult
    static func read(over transport: any CardTransport) -> String {
        guard
            let key = try? MRZKey(documentNumber: documentNumber, dateOfBirth: dateOfBirth, dateOfExpiry: dateOfExpiry)
        else { preconditionFailure("the fixed MRZ key is valid") }
        let options = ReadOptions(
            accessKey: .mrz(key), allowBACFallback: true, maxResumptions: 0, representTimeout: 0,
            random: FixedRandom())
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex("")
        Task {
            do {
                let result = try await DocumentReader(transport: transport, options: options).read()
                outcome.withLock { $0 = "read \(result.files.count) files" }
            } catch {
                outcome.withLock { $0 = "failed: \(error)" }
            }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0 }
    }

    /// The input split into response APDUs (at most `maxAnswers`).
    static func answers(_ bytes: [UInt8]) -> [ResponseAPDU] {
        var out: [ResponseAPDU] = []
        var i = 0
        while i < bytes.count, out.count < maxAnswers {
            var n = Int(bytes[i])
            i += 1
            if n == 0xFF {
                guard i + 2 <= bytes.count else { break }
                n = Int(bytes[i]) << 8 | Int(bytes[i + 1])
                i += 2
            }
            let chunk = Array(bytes[i..<min(i + n, bytes.count)])
            i += n
            if chunk.count < 2 {
                out.append(ResponseAPDU(sw: 0x6F00))
            } else {
                out.append(
                    ResponseAPDU(
                        data: Array(chunk.dropLast(2)),
                        sw: UInt16(chunk[chunk.count - 2]) << 8 | UInt16(chunk[chunk.count - 1])))
            }
        }
        return out
    }

    /// `answers` as the input format.
    static func encode(_ answers: [ResponseAPDU]) -> [UInt8] {
        var out: [UInt8] = []
        for a in answers.prefix(maxAnswers) {
            let b = a.bytes
            if b.count < 0xFF {
                out.append(UInt8(b.count))
            } else {
                out += [0xFF, UInt8(b.count >> 8), UInt8(b.count & 0xFF)]
            }
            out += b
        }
        return out
    }

    /// Seeds: reads of generated documents (the fixed key, the fixed randomness) on the virtual chip, recorded. The
    /// replay diverges where the chip's answer depends on the terminal's fresh key material, which is what mutation
    /// then explores from.
    static func seeds() throws -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        for name in SpecimenGenerator.profileNames.prefix(4) {
            var profile = try SpecimenGenerator.generate(named: name).profile
            profile.documentNumber = documentNumber
            profile.dateOfBirth = dateOfBirth
            profile.dateOfExpiry = dateOfExpiry
            let recorder = RecordingTransport(
                LocalCardTransport(emulator: VirtualChip(profile: profile)))
            let recording = read(over: recorder)
            let answers = recorder.answers.withLock { $0 }
            let seed = encode(answers)
            // How far a replay of the seed follows the recorded conversation: the same commands mean the reader
            // accepted the replayed answers (cryptograms, MACs) up to there.
            let replay = ScriptedTransport(answers: ChipAnswersTarget.answers(seed))
            read(over: replay)
            let sent = replay.commands.withLock { $0 }
            let recorded = recorder.commands.withLock { $0 }
            let same = min(zip(sent, recorded).prefix { $0 == $1 }.count, maxAnswers)
            print(
                "chip-answers seed \(name): the recorded read \(recording); the replay repeats \(same) of"
                    + " \(min(recorded.count, maxAnswers)) commands")
            out.append((name, seed))
        }
        out.append(("select-fails", encode([ResponseAPDU(sw: 0x6A82), ResponseAPDU(sw: 0x6A82)])))
        return out
    }
}

/// Always the same bytes: a counter, so that two requests in one run still differ.
struct FixedRandom: RandomSource {
    func randomBytes(count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 7) } }
}

/// Answers each command with the next scripted response; then fails as a card that left the field.
final class ScriptedTransport: CardTransport {
    let name = "fuzz script"
    private let script: Mutex<[ResponseAPDU]>
    init(answers: [ResponseAPDU]) { script = Mutex(answers.reversed()) }
    var capabilities: TransportCapabilities { .extended }
    var atr: [UInt8] { [0x3B, 0x80, 0x80, 0x01, 0x01] }
    /// The commands received (seed generation compares them with a recorded conversation).
    let commands = Mutex<[CommandAPDU]>([])
    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        commands.withLock { if $0.count < ChipAnswersTarget.maxAnswers + 1 { $0.append(command) } }
        guard let next = script.withLock({ $0.popLast() }) else {
            throw TransportError(.cardRemoved, function: "transmit", "the fuzz script has no more answers")
        }
        return next
    }
    func reconnect(reset: Bool, timeout: Double) async throws {}
}

/// A transport that keeps every answer of the one it wraps.
final class RecordingTransport: CardTransport {
    let inner: any CardTransport
    let answers = Mutex<[ResponseAPDU]>([])
    let commands = Mutex<[CommandAPDU]>([])
    init(_ inner: any CardTransport) { self.inner = inner }
    var name: String { inner.name }
    var capabilities: TransportCapabilities { get async { await inner.capabilities } }
    var atr: [UInt8] { get async throws { try await inner.atr } }
    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        commands.withLock { $0.append(command) }
        let r = try await inner.transmit(command)
        answers.withLock { $0.append(r) }
        return r
    }
    func reconnect(reset: Bool, timeout: Double) async throws {
        try await inner.reconnect(reset: reset, timeout: timeout)
    }
}
