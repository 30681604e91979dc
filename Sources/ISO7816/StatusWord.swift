/// A status word SW1-SW2 (ISO/IEC 7816-4 §5.6) with its meaning.
public struct StatusWord: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ sw1: UInt8, _ sw2: UInt8) { self.rawValue = UInt16(sw1) << 8 | UInt16(sw2) }

    public var sw1: UInt8 { UInt8(rawValue >> 8) }
    public var sw2: UInt8 { UInt8(rawValue & 0xFF) }

    public static let success = StatusWord(rawValue: 0x9000)
    /// 6282: end of file reached before reading Ne bytes.
    public static let endOfFileReached = StatusWord(rawValue: 0x6282)
    public static let wrongLength = StatusWord(rawValue: 0x6700)
    public static let securityStatusNotSatisfied = StatusWord(rawValue: 0x6982)
    public static let authenticationMethodBlocked = StatusWord(rawValue: 0x6983)
    public static let referenceDataNotUsable = StatusWord(rawValue: 0x6984)
    public static let conditionsOfUseNotSatisfied = StatusWord(rawValue: 0x6985)
    public static let commandNotAllowed = StatusWord(rawValue: 0x6986)
    public static let smDataObjectsMissing = StatusWord(rawValue: 0x6987)
    public static let smDataObjectsIncorrect = StatusWord(rawValue: 0x6988)
    public static let wrongData = StatusWord(rawValue: 0x6A80)
    public static let functionNotSupported = StatusWord(rawValue: 0x6A81)
    public static let fileNotFound = StatusWord(rawValue: 0x6A82)
    public static let recordNotFound = StatusWord(rawValue: 0x6A83)
    public static let incorrectP1P2 = StatusWord(rawValue: 0x6A86)
    public static let referencedDataNotFound = StatusWord(rawValue: 0x6A88)
    public static let wrongParametersOffsetOutsideEF = StatusWord(rawValue: 0x6B00)
    public static let insNotSupported = StatusWord(rawValue: 0x6D00)
    public static let claNotSupported = StatusWord(rawValue: 0x6E00)
    public static let noPreciseDiagnosis = StatusWord(rawValue: 0x6F00)
    public static let executionError = StatusWord(rawValue: 0x6400)
    public static let memoryFailure = StatusWord(rawValue: 0x6581)

    public var isSuccess: Bool { rawValue == 0x9000 }
    /// 61xx: more response bytes available (GET RESPONSE with Le = SW2).
    public var isMoreDataAvailable: Bool { sw1 == 0x61 }
    /// 6Cxx: wrong Le; SW2 gives the exact length.
    public var isWrongLe: Bool { sw1 == 0x6C }
    /// 62xx / 63xx: warning; the command was processed.
    public var isWarning: Bool { sw1 == 0x62 || sw1 == 0x63 }

    /// The meaning given by ISO/IEC 7816-4 §5.6 and ICAO 9303-11.
    public var meaning: String {
        switch rawValue {
        case 0x9000: return "normal processing"
        case 0x6282: return "end of file reached before reading Ne bytes"
        case 0x6281: return "part of returned data may be corrupted"
        case 0x6283: return "selected file deactivated"
        case 0x6700: return "wrong length"
        case 0x6881: return "logical channel not supported"
        case 0x6882: return "secure messaging not supported"
        case 0x6982: return "security status not satisfied"
        case 0x6983: return "authentication method blocked"
        case 0x6984: return "reference data not usable"
        case 0x6985: return "conditions of use not satisfied"
        case 0x6986: return "command not allowed (no current EF)"
        case 0x6987: return "expected secure messaging data objects missing"
        case 0x6988: return "incorrect secure messaging data objects"
        case 0x6A80: return "incorrect parameters in the command data field"
        case 0x6A81: return "function not supported"
        case 0x6A82: return "file or application not found"
        case 0x6A83: return "record not found"
        case 0x6A86: return "incorrect parameters P1-P2"
        case 0x6A88: return "referenced data not found"
        case 0x6B00: return "wrong parameters (offset outside the EF)"
        case 0x6D00: return "instruction code not supported or invalid"
        case 0x6E00: return "class not supported"
        case 0x6F00: return "no precise diagnosis"
        case 0x6400: return "execution error"
        case 0x6581: return "memory failure"
        default:
            switch sw1 {
            case 0x61: return "\(sw2 == 0 ? 256 : Int(sw2)) more response bytes available"
            case 0x6C: return "wrong Le field; exact length is \(sw2 == 0 ? 256 : Int(sw2))"
            case 0x63 where sw2 & 0xF0 == 0xC0: return "verification failed, \(sw2 & 0x0F) tries left"
            case 0x62, 0x63: return "warning"
            case 0x64, 0x65, 0x66: return "execution error"
            case 0x67: return "wrong length"
            case 0x68: return "functions in CLA not supported"
            case 0x69: return "command not allowed"
            case 0x6A: return "wrong parameters P1-P2"
            default: return "unknown status"
            }
        }
    }

    public var description: String { String(format4: rawValue) + " (" + meaning + ")" }
}

extension String {
    init(format4 v: UInt16) {
        let digits: [Character] = Array("0123456789ABCDEF")
        self = String([
            digits[Int(v >> 12)], digits[Int(v >> 8 & 0xF)], digits[Int(v >> 4 & 0xF)], digits[Int(v & 0xF)],
        ])
    }
}
