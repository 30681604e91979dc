/// A command APDU (ISO/IEC 7816-4 §5.1) in any of the four cases, short or extended length.
///
/// `ne` is the maximum number of response bytes expected (Ne): nil means no Le field;
/// 1...256 is encodable in short form (256 as '00'), up to 65536 in extended form ('0000').
public struct CommandAPDU: Hashable, Sendable {
    public var cla: UInt8
    public var ins: UInt8
    public var p1: UInt8
    public var p2: UInt8
    public var data: [UInt8]
    public var ne: Int?
    /// Use extended length even when short length would do (e.g. to test a chip's extended support).
    public var forceExtended: Bool

    public init(
        cla: UInt8 = 0x00, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8] = [], ne: Int? = nil,
        forceExtended: Bool = false
    ) {
        precondition(data.count <= 65535, "command data longer than 65535")
        precondition(ne == nil || (1...65536).contains(ne!), "Ne out of range")
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
        self.data = data
        self.ne = ne
        self.forceExtended = forceExtended
    }

    /// Whether the encoding needs (or is forced into) extended length.
    public var isExtended: Bool { forceExtended || data.count > 255 || (ne ?? 0) > 256 }

    /// The case number 1–4 of ISO/IEC 7816-3 §12.1.
    public var caseNumber: Int {
        switch (data.isEmpty, ne == nil) {
        case (true, true): return 1
        case (true, false): return 2
        case (false, true): return 3
        case (false, false): return 4
        }
    }

    /// Whether this command is marked as secure-messaging protected (CLA bits 4-3 = 11, '0C').
    public var isSecureMessaging: Bool { cla & 0x0C == 0x0C }
    /// Whether command chaining is indicated (CLA bit 5, '10').
    public var isChained: Bool { cla & 0x10 != 0 }

    public var header: [UInt8] { [cla, ins, p1, p2] }

    /// The length of `bytes` (header, Lc and Le fields, data), computed without encoding.
    public var encodedLength: Int {
        let ext = isExtended
        var n = 4
        if !data.isEmpty { n += (ext ? 3 : 1) + data.count }
        if ne != nil { n += ext ? (data.isEmpty ? 3 : 2) : 1 }
        return n
    }

    /// The encoded APDU (built in one allocation of `encodedLength` bytes).
    public var bytes: [UInt8] {
        let ext = isExtended
        let count = encodedLength
        return [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            out[0] = cla
            out[1] = ins
            out[2] = p1
            out[3] = p2
            var i = 4
            if !data.isEmpty {
                if ext {
                    out[i] = 0x00
                    out[i + 1] = UInt8(data.count >> 8)
                    out[i + 2] = UInt8(data.count & 0xFF)
                    i += 3
                } else {
                    out[i] = UInt8(data.count)
                    i += 1
                }
                data.withUnsafeBufferPointer { d in
                    _ = UnsafeMutableBufferPointer(rebasing: out[i..<(i + d.count)]).initialize(from: d)
                }
                i += data.count
            }
            if let ne {
                if ext {
                    let le = ne == 65536 ? 0 : ne
                    if data.isEmpty {
                        out[i] = 0x00
                        i += 1
                    }
                    out[i] = UInt8(le >> 8)
                    out[i + 1] = UInt8(le & 0xFF)
                    i += 2
                } else {
                    out[i] = ne == 256 ? 0x00 : UInt8(ne)
                    i += 1
                }
            }
            initialized = i
        }
    }

    /// Parses an encoded command APDU of any case.
    public init(bytes b: [UInt8]) throws(APDUError) {
        guard b.count >= 4 else { throw APDUError.malformedCommand("fewer than 4 bytes") }
        let body = Array(b[4...])
        var data: [UInt8] = []
        var ne: Int? = nil
        var ext = false
        if body.isEmpty {
            // case 1
        } else if body.count == 1 {
            ne = body[0] == 0 ? 256 : Int(body[0])
        } else if body[0] != 0 {
            let lc = Int(body[0])
            if body.count == 1 + lc {
                data = Array(body[1...])
            } else if body.count == 2 + lc {
                data = Array(body[1..<(1 + lc)])
                ne = body[1 + lc] == 0 ? 256 : Int(body[1 + lc])
            } else {
                throw APDUError.malformedCommand("Lc \(lc) does not match \(body.count - 1) remaining bytes")
            }
        } else {
            ext = true
            guard body.count >= 3 else {
                throw APDUError.malformedCommand("extended length field of \(body.count) bytes")
            }
            if body.count == 3 {
                let le = Int(body[1]) << 8 | Int(body[2])
                ne = le == 0 ? 65536 : le
            } else {
                let lc = Int(body[1]) << 8 | Int(body[2])
                guard lc > 0 else { throw APDUError.malformedCommand("extended Lc of 0") }
                if body.count == 3 + lc {
                    data = Array(body[3...])
                } else if body.count == 5 + lc {
                    data = Array(body[3..<(3 + lc)])
                    let le = Int(body[3 + lc]) << 8 | Int(body[4 + lc])
                    ne = le == 0 ? 65536 : le
                } else {
                    throw APDUError.malformedCommand(
                        "extended Lc \(lc) does not match \(body.count - 3) remaining bytes")
                }
            }
        }
        self.init(cla: b[0], ins: b[1], p1: b[2], p2: b[3], data: data, ne: ne, forceExtended: ext)
    }
}

/// A response APDU: data field and status word.
public struct ResponseAPDU: Hashable, Sendable {
    public var data: [UInt8]
    public var statusWord: StatusWord

    public init(data: [UInt8] = [], statusWord: StatusWord) {
        self.data = data
        self.statusWord = statusWord
    }

    public init(data: [UInt8] = [], sw: UInt16) { self.init(data: data, statusWord: StatusWord(rawValue: sw)) }

    /// Parses response bytes (data || SW1 SW2).
    public init(bytes: [UInt8]) throws(APDUError) {
        guard bytes.count >= 2 else { throw APDUError.malformedResponse("\(bytes.count) bytes, no status word") }
        self.data = Array(bytes[..<(bytes.count - 2)])
        self.statusWord = StatusWord(bytes[bytes.count - 2], bytes[bytes.count - 1])
    }

    public var bytes: [UInt8] { data + [statusWord.sw1, statusWord.sw2] }
    public var isSuccess: Bool { statusWord.isSuccess }
}

public enum APDUError: Error, Hashable, Sendable, CustomStringConvertible {
    case malformedCommand(String)
    case malformedResponse(String)

    public var description: String {
        switch self {
        case .malformedCommand(let r): return "malformed command APDU: \(r)"
        case .malformedResponse(let r): return "malformed response APDU: \(r)"
        }
    }
}
