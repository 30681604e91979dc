/// What a reader driver says about itself through PC/SC: the PC/SC v2 part 10 features
/// (`SCardControl(CM_IOCTL_GET_FEATURE_REQUEST)`), the part 10 TLV properties
/// (`FEATURE_GET_TLV_PROPERTIES`, PC/SC v2.02.09 part 10 §2.6.14) and `SCardGetAttrib` values.
///
/// The CCID driver (libccid) exposes all of these; other drivers (vpcd, many vendor drivers)
/// answer none, which leaves the corresponding fields empty.
public struct ReaderProperties: Hashable, Sendable {
    /// Feature tag → control code (PC/SC part 10 §2.3: TLV with 1-byte tag, 1-byte length 4,
    /// 4-byte big-endian control code).
    public var features: [UInt8: UInt32] = [:]
    /// Property tag → raw value bytes (little-endian integers or strings).
    public var tlvProperties: [UInt8: [UInt8]] = [:]
    /// `SCARD_ATTR_MAXINPUT`: the largest message the driver accepts (libccid: dwMaxCCIDMessageLength − 10).
    public var maxInput: UInt64?
    /// `SCARD_ATTR_VENDOR_NAME`.
    public var vendorName: String?

    public init() {}

    /// FEATURE_GET_TLV_PROPERTIES (reader.h).
    public static let featureGetTLVProperties: UInt8 = 0x12
    /// PCSCv2_PART10_PROPERTY_dwMaxAPDUDataSize: 0 = short APDUs only, else the largest data field.
    public static let propertyMaxAPDUDataSize: UInt8 = 10
    /// PCSCv2_PART10_PROPERTY_sFirmwareID.
    public static let propertyFirmwareID: UInt8 = 8
    /// PCSCv2_PART10_PROPERTY_wIdVendor / wIdProduct.
    public static let propertyIdVendor: UInt8 = 11
    public static let propertyIdProduct: UInt8 = 12

    /// `dwMaxAPDUDataSize`, when the driver reports it.
    public var maxAPDUDataSize: UInt64? {
        tlvProperties[Self.propertyMaxAPDUDataSize].map(Self.littleEndian)
    }

    /// USB vendor:product, when reported.
    public var usbID: (vendor: UInt16, product: UInt16)? {
        guard let v = tlvProperties[Self.propertyIdVendor], let p = tlvProperties[Self.propertyIdProduct] else {
            return nil
        }
        return (UInt16(truncatingIfNeeded: Self.littleEndian(v)), UInt16(truncatingIfNeeded: Self.littleEndian(p)))
    }

    public var firmwareID: String? {
        tlvProperties[Self.propertyFirmwareID].map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Whether any source answered.
    public var isEmpty: Bool { features.isEmpty && tlvProperties.isEmpty && maxInput == nil && vendorName == nil }

    /// Parses the answer to `CM_IOCTL_GET_FEATURE_REQUEST`: a sequence of PCSC_TLV_STRUCTURE
    /// {tag, length = 4, value: big-endian control code}. Entries with another length are skipped;
    /// a truncated entry ends the parse.
    public static func parseFeatures(_ bytes: [UInt8]) -> [UInt8: UInt32] {
        var out: [UInt8: UInt32] = [:]
        var i = 0
        while i + 2 <= bytes.count {
            let tag = bytes[i]
            let length = Int(bytes[i + 1])
            guard i + 2 + length <= bytes.count else { break }
            if length == 4 {
                let v = bytes[(i + 2)..<(i + 6)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                out[tag] = v
            }
            i += 2 + length
        }
        return out
    }

    /// Parses the answer to FEATURE_GET_TLV_PROPERTIES: {tag (1 byte), length (1 byte), value}.
    public static func parseTLVProperties(_ bytes: [UInt8]) -> [UInt8: [UInt8]] {
        var out: [UInt8: [UInt8]] = [:]
        var i = 0
        while i + 2 <= bytes.count {
            let tag = bytes[i]
            let length = Int(bytes[i + 1])
            guard i + 2 + length <= bytes.count else { break }
            out[tag] = Array(bytes[(i + 2)..<(i + 2 + length)])
            i += 2 + length
        }
        return out
    }

    /// A little-endian unsigned integer of up to 8 bytes.
    public static func littleEndian(_ bytes: [UInt8]) -> UInt64 {
        bytes.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}
