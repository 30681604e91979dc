internal import ASN1TLV
import Dispatch
public import ISO7816
public import MRTDDocument

/// What is known about one file while it is being read; survives a lost session so that the read
/// continues where it stopped (never re-reading bytes it has).
public struct PartialFile: Sendable, Hashable {
    public var file: LDSFile
    /// Bytes read so far, as the chip sent them (each chunk authenticated by the SM MAC).
    public var bytes: [UInt8] = []
    /// Total length from the TLV header of the first chunk (nil until known).
    public var totalLength: Int?
    /// READ BINARY / SELECT commands spent on this file.
    public var apdus = 0
    /// Nanoseconds spent on this file.
    public var nanoseconds: UInt64 = 0
    /// How many times reading this file was resumed after an interruption.
    public var resumptions = 0

    public init(file: LDSFile) { self.file = file }

    public var isComplete: Bool { totalLength.map { bytes.count >= $0 } ?? false }
}

/// Why a file could not be read (not a link failure: those are thrown as `TransportError`).
public enum FileReadOutcome: Sendable, Hashable {
    case complete
    /// 6A82: the chip has no such file.
    case notFound
    /// 6982: reading needs more than basic access (DG3/DG4 need EAC terminal authentication).
    case accessDenied
    /// Another status word the reader cannot work around.
    case failed(StatusWord)
}

/// Reads one elementary file in as few READ BINARY commands as the path allows (docs/architecture.md §6):
/// short EF identifier on the first command (no SELECT), the first chunk at full size (its TLV header
/// gives the file length), then full chunks; odd-INS READ BINARY beyond offset 32767; SELECT by file
/// identifier only when the chip refuses the short identifier or after the session was lost.
public struct FileReader: Sendable {
    public var useSFI: Bool
    public var chunk: ChunkPolicy

    public init(useSFI: Bool, chunk: ChunkPolicy) {
        self.useSFI = useSFI
        self.chunk = chunk
    }

    /// Continues `partial` to completion (or a status that ends it). `selected` tells whether the file is
    /// the current EF already (true after a successful READ BINARY of it in the same session).
    public mutating func read(_ partial: inout PartialFile, channel: APDUChannel, selected: inout Bool) async throws
        -> FileReadOutcome
    {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { partial.nanoseconds &+= DispatchTime.now().uptimeNanoseconds &- start }
        var sfiRefused = !useSFI
        var retriesAtOffset = 0
        // the exact length a '6Cxx' gave for the next command at the same offset (used once)
        var exactNe: Int? = nil

        while !partial.isComplete {
            let offset = partial.bytes.count
            let odd = offset > 0x7FFF
            // odd INS: the answer is DO'53' around the data, and Ne counts its header (up to 4 bytes)
            let remaining = partial.totalLength.map { $0 - offset + (odd ? 4 : 0) }
            let ne = exactNe ?? chunk.ne(remaining: remaining)
            exactNe = nil
            let command: CommandAPDU
            if !selected && !sfiRefused && offset <= 0xFF {
                command = .readBinary(sfi: partial.file.sfi, offset: offset, ne: ne)
            } else {
                if !selected {
                    partial.apdus += 1
                    let r = try await channel.send(.selectFile(partial.file.fid))
                    switch r.statusWord {
                    case .success: selected = true
                    case .fileNotFound: return .notFound
                    case .securityStatusNotSatisfied: return .accessDenied
                    default: return .failed(r.statusWord)
                    }
                }
                command = odd ? .readBinaryOdd(offset: offset, ne: ne) : .readBinary(offset: offset, ne: ne)
            }
            var cmd = command
            if chunk.needsExtended(ne) { cmd.forceExtended = true }
            partial.apdus += 1
            let response = try await channel.send(cmd)
            let sw = response.statusWord
            var data = response.data
            if cmd.ins == 0xB1, !data.isEmpty {
                // odd INS: the data come back in DO'53' (ISO/IEC 7816-4 §7.2.3)
                guard let node = try? TLVParser.parsePrefix(data[...]).0, node.tag == 0x53 else {
                    return .failed(sw)
                }
                data = node.valueBytes
            }

            switch sw {
            case .success, .endOfFileReached:
                if cmd.p1 & 0x80 != 0 && cmd.ins == 0xB0 { selected = true }
                if data.isEmpty {
                    if sw == .endOfFileReached || partial.totalLength == nil {
                        return .failed(sw)
                    }
                    retriesAtOffset += 1
                    if retriesAtOffset > 2 { return .failed(sw) }
                    _ = chunk.stepDown(after: .wrongLength)
                    continue
                }
                retriesAtOffset = 0
                if partial.totalLength == nil {
                    let header = try TLVParser.peekHeader(data[...])
                    guard let len = header.valueLength else {
                        throw TLVError(
                            .indefiniteLengthNotAllowed, offset: 0, "\(partial.file.rawValue) has no definite length")
                    }
                    // a declared length above the kind's cap is refused before anything more is read (docs/reliability.md)
                    if let tooLarge = LDSLimits.violation(partial.file, length: header.headerLength + len) {
                        throw ReadError.chip(tooLarge.description)
                    }
                    partial.totalLength = header.headerLength + len
                    // room for the whole file at once (no regrowth per chunk) — up to 1 MiB, whatever length a
                    // chip claims; a larger file grows as it arrives
                    partial.bytes.reserveCapacity(min(header.headerLength + len, 1 << 20))
                }
                let room = partial.totalLength! - partial.bytes.count
                partial.bytes += data.prefix(room)
                if sw == .endOfFileReached && !partial.isComplete {
                    return .failed(sw)
                }
            case .fileNotFound:
                return .notFound
            case .securityStatusNotSatisfied:
                return .accessDenied
            case .incorrectP1P2, .functionNotSupported, .insNotSupported, .commandNotAllowed,
                .wrongParametersOffsetOutsideEF:
                guard !selected && command.ins == 0xB0 && command.p1 & 0x80 != 0 else { return .failed(sw) }
                // the chip does not take short EF identifiers: SELECT from now on
                sfiRefused = true
                useSFI = false
            default:
                if chunk.stepDown(after: sw) {
                    // 6700, or 6Cxx with a smaller exact length: that size from now on (at the end of a file
                    // the read ends with it anyway)
                    retriesAtOffset += 1
                    if retriesAtOffset > 6 { return .failed(sw) }
                    continue
                }
                if sw.isWrongLe {
                    // 6Cxx asking for more than the chunk (e.g. '6C00' = 256 to a 223-byte Ne): that Ne once, at this offset
                    retriesAtOffset += 1
                    if retriesAtOffset > 2 { return .failed(sw) }
                    exactNe = sw.sw2 == 0 ? 256 : Int(sw.sw2)
                    continue
                }
                return .failed(sw)
            }
        }
        return .complete
    }
}
