/// An answer-to-reset (ISO/IEC 7816-3 §8.2) as far as a reader of eMRTDs needs it: the protocols it
/// offers and the historical bytes, with the card-capabilities data object of ISO/IEC 7816-4 §8.1.1.2.7
/// that says whether the card takes extended-length APDUs and command chaining.
///
/// A contactless card has no ATR of its own; the PC/SC reader builds one (PC/SC part 3 §3.1.3.2.3) whose
/// historical bytes are the ATS historical bytes (type A) or the ATQB application data (type B), so the
/// card-capabilities byte a passport puts in its ATS arrives here.
///
/// Parsing is bounded by the ATR's own length (at most 33 bytes are accepted) and never throws: a
/// malformed ATR is nil, and an ATR that does not say something answers nil for it ("unknown"), never false.
public struct ATR: Sendable, Hashable {
    /// The ATR as received.
    public let bytes: [UInt8]
    /// The T values announced by the TDi bytes (T=0 when none is announced, ISO/IEC 7816-3 §8.2.3).
    public let protocols: [Int]
    /// The K historical bytes.
    public let historicalBytes: [UInt8]

    /// The longest ATR ISO/IEC 7816-3 allows (TS + 32 bytes).
    public static let maximumLength = 33

    /// Parses `bytes`; nil when they are not an ATR (no TS/T0, interface or historical bytes cut short,
    /// longer than 33 bytes). A trailing TCK is tolerated but not required (some PC/SC readers omit it).
    public init?(_ bytes: [UInt8]) {
        guard bytes.count >= 2, bytes.count <= Self.maximumLength, bytes[0] == 0x3B || bytes[0] == 0x3F else {
            return nil
        }
        let k = Int(bytes[1] & 0x0F)
        var y = bytes[1] >> 4
        var i = 2
        var protocols: [Int] = []
        while true {
            // TAi, TBi, TCi present per bits 5–7 of Y; TDi per bit 8
            i += Int(y & 1) + Int(y >> 1 & 1) + Int(y >> 2 & 1)
            guard y & 0x8 != 0 else { break }
            guard i < bytes.count else { return nil }
            let td = bytes[i]
            protocols.append(Int(td & 0x0F))
            y = td >> 4
            i += 1
        }
        guard i + k <= bytes.count else { return nil }
        self.bytes = bytes
        self.protocols = protocols.isEmpty ? [0] : protocols
        self.historicalBytes = Array(bytes[i..<(i + k)])
    }

    /// The compact-TLV data objects of the historical bytes (ISO/IEC 7816-4 §8.1.1.1): present when the
    /// category indicator is '80' (objects to the end) or '00' (objects, then three status bytes).
    /// Empty for other categories or when an object runs past the end.
    public var compactTLVObjects: [(tag: UInt8, value: [UInt8])] {
        guard let category = historicalBytes.first else { return [] }
        let end: Int
        switch category {
        case 0x80: end = historicalBytes.count
        case 0x00: end = historicalBytes.count - 3
        default: return []
        }
        var out: [(tag: UInt8, value: [UInt8])] = []
        var j = 1
        while j < end {
            let tag = historicalBytes[j] >> 4
            let length = Int(historicalBytes[j] & 0x0F)
            guard j + 1 + length <= end else { return [] }
            out.append((tag, Array(historicalBytes[(j + 1)..<(j + 1 + length)])))
            j += 1 + length
        }
        return out
    }

    /// The card-capabilities data object (compact-TLV tag '7', ISO/IEC 7816-4 §8.1.1.2.7): one to three
    /// "software function" bytes; nil when the ATR has none.
    public var cardCapabilities: [UInt8]? {
        compactTLVObjects.first { $0.tag == 0x7 }?.value
    }

    /// Whether the card takes extended Lc and Le fields (third software function byte, bit 7);
    /// nil when the ATR does not say (no card capabilities, or fewer than three bytes of them).
    public var supportsExtendedLength: Bool? {
        guard let c = cardCapabilities, c.count >= 3 else { return nil }
        return c[2] & 0x40 != 0
    }

    /// Whether the card takes command chaining (third software function byte, bit 8); nil when unknown.
    public var supportsCommandChaining: Bool? {
        guard let c = cardCapabilities, c.count >= 3 else { return nil }
        return c[2] & 0x80 != 0
    }
}
