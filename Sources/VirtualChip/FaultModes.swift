import ISO7816

#if canImport(Glibc)
    import Glibc
#endif

/// Chip behaviour seen in the field (clones of real chips' quirks), off by default: each fault makes the virtual chip
/// answer as some issued chips do, so that the reader's handling of it is pinned by a test.
public struct ChipFaults: Sendable, Hashable {
    /// Response chaining (ISO/IEC 7816-4 §5.3.4): every response with more than this many data bytes
    /// is sent in parts — the first part with '61xx', the rest through GET RESPONSE ('C0', Le = xx), the
    /// last part with the response's own status word. It applies below secure messaging: a protected
    /// response is cut as bytes (DO'87'/'99'/'8E'), and GET RESPONSE is taken plain, without touching the
    /// session. Any other command discards what was left of a chain.
    public var chainResponsesLongerThan: Int?
    /// With `chainResponsesLongerThan`: each GET RESPONSE brings at most this many bytes, and '61xx' announces
    /// at most this many (a chip with a small buffer, e.g. 60 bytes per part).
    public var chainPartSize: Int?
    /// With `chainResponsesLongerThan`: a chained response never ends — once its bytes are sent, every GET
    /// RESPONSE brings one more byte ('00') with '6101' (a hostile chip).
    public var chainNeverEnds: Bool
    /// '6Cxx' on plain READ BINARY: a plain READ BINARY whose answer would bring fewer bytes than Ne
    /// (the end of the file, or the chip's own limit) is refused with '6Cxx', xx = the bytes it would
    /// bring ('00' for 256), so that the reader asks again with that Le.
    public var wrongLeOnPlainReads: Bool
    /// READ BINARY brings fewer bytes than asked at every offset (1 to 7 fewer, varying with the
    /// offset; at least one byte), with 9000 — plain and under secure messaging.
    public var shortReads: Bool
    /// READ BINARY at or beyond this offset (inside the file) answers 9000 without any data.
    public var emptyReadsFromOffset: Int?
    /// Seconds the chip takes before each answer (a chip slower than the reader's timeout).
    public var delay: Double

    public init(
        chainResponsesLongerThan: Int? = nil, chainPartSize: Int? = nil, chainNeverEnds: Bool = false,
        wrongLeOnPlainReads: Bool = false, shortReads: Bool = false, emptyReadsFromOffset: Int? = nil,
        delay: Double = 0
    ) {
        self.chainResponsesLongerThan = chainResponsesLongerThan
        self.chainPartSize = chainPartSize
        self.chainNeverEnds = chainNeverEnds
        self.wrongLeOnPlainReads = wrongLeOnPlainReads
        self.shortReads = shortReads
        self.emptyReadsFromOffset = emptyReadsFromOffset
        self.delay = delay
    }

    /// No fault.
    public static let none = ChipFaults()
}

/// What is left of a chained response, between GET RESPONSE commands.
struct PendingChain {
    var data: ArraySlice<UInt8>
    var statusWord: StatusWord
}

extension ChipEngine {
    var faults: ChipFaults { options.faults }

    /// `process` with the faults of `options.faults` around it (the chip's entry point).
    mutating func processWithFaults(_ bytes: [UInt8]) -> ResponseAPDU {
        // GET RESPONSE continuing a chain is answered here, below secure messaging.
        if var chain = pendingChain {
            pendingChain = nil
            if bytes.count >= 4, bytes[0] & 0xFC == 0, bytes[1] == 0xC0, let c = try? CommandAPDU(bytes: bytes) {
                if chain.data.isEmpty && faults.chainNeverEnds {
                    pendingChain = chain
                    return ResponseAPDU(data: [0x00], statusWord: StatusWord(0x61, 0x01))
                }
                let n = min(c.ne ?? 256, chain.data.count, faults.chainPartSize.map { max(1, $0) } ?? Int.max)
                let part = Array(chain.data.prefix(n))
                chain.data = chain.data.dropFirst(n)
                if chain.data.isEmpty && !faults.chainNeverEnds {
                    return ResponseAPDU(data: part, statusWord: chain.statusWord)
                }
                pendingChain = chain
                return ResponseAPDU(data: part, statusWord: StatusWord(0x61, announced(chain.data.count)))
            }
        }
        var response = process(bytes)
        if faults.wrongLeOnPlainReads, bytes.count >= 5, bytes[0] & 0x0C == 0, bytes[1] == 0xB0 || bytes[1] == 0xB1,
            let c = try? CommandAPDU(bytes: bytes), let ne = c.ne,
            response.statusWord == .success || response.statusWord == .endOfFileReached,
            !response.data.isEmpty, response.data.count < ne, response.data.count <= 256
        {
            response = ResponseAPDU(statusWord: StatusWord(0x6C, UInt8(response.data.count & 0xFF)))
        }
        if let limit = faults.chainResponsesLongerThan, limit > 0, response.data.count > limit {
            let first = Array(response.data.prefix(limit))
            let rest = response.data[limit...]
            pendingChain = PendingChain(data: rest, statusWord: response.statusWord)
            return ResponseAPDU(data: first, statusWord: StatusWord(0x61, announced(rest.count)))
        }
        return response
    }

    /// SW2 of a '61xx': the bytes left ('00' = 256 or more), at most `chainPartSize`; '01' for a chain that never
    /// ends and has sent its bytes.
    func announced(_ left: Int) -> UInt8 {
        if left == 0 { return 0x01 }
        let n = min(left, 256, faults.chainPartSize.map { max(1, $0) } ?? 256)
        return UInt8(n & 0xFF)
    }

    /// How many of the `n` bytes READ BINARY could bring at `offset` it does bring (`shortReads`).
    func faultyReadLength(_ n: Int, offset: Int) -> Int {
        guard faults.shortReads, n > 1 else { return n }
        return max(1, n - 1 - offset % 7)
    }

    /// Whether READ BINARY at `offset` answers 9000 without data (`emptyReadsFromOffset`).
    func faultyEmptyRead(offset: Int) -> Bool {
        faults.emptyReadsFromOffset.map { offset >= $0 } ?? false
    }
}

extension VirtualChip {
    /// The faults this chip was made with.
    public var faults: ChipFaults { profileFaults }

    /// Waits as `faults.delay` says (outside the chip's lock).
    func delayAnswer() {
        let d = profileFaults.delay
        if d > 0 { usleep(UInt32(min(d, 60) * 1_000_000)) }
    }
}
