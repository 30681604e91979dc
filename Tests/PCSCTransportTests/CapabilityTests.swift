import Foundation
import ISO7816
import MRTDTestSupport
import PCSCTransport
import Testing

/// PC/SC part 10 answers and how capabilities are combined with profiles.
struct CapabilityTests {
    // A CCID-driver-like feature answer: VERIFY_PIN_DIRECT (06) → 0x42330006,
    // GET_TLV_PROPERTIES (12) → 0x42330012, CCID_ESC_COMMAND (13) → 0x42330013.
    static let features = hex("060442330006" + "120442330012" + "130442330013")

    @Test("feature request answer parses into tag → control code (big-endian)")
    func featureParse() {
        let f = ReaderProperties.parseFeatures(Self.features)
        #expect(f == [0x06: 0x4233_0006, 0x12: 0x4233_0012, 0x13: 0x4233_0013])
        // Negative twin: a truncated last entry is dropped, the rest kept.
        let cut = ReaderProperties.parseFeatures(Array(Self.features.dropLast()))
        #expect(cut == [0x06: 0x4233_0006, 0x12: 0x4233_0012])
        // A flipped length byte (4 → 5) desynchronises: no bogus control codes appear.
        let bad = ReaderProperties.parseFeatures(flipBit(Self.features, at: 1, bit: 0))
        #expect(bad[0x06] == nil)
    }

    // TLV properties: wIdVendor (0B) 072F, wIdProduct (0C) 2200, dwMaxAPDUDataSize (0A) 0x00010000,
    // sFirmwareID (08) "1.0".
    static let tlv = hex("0B022F07" + "0C020022" + "0A0400000100" + "0803312E30")

    @Test("TLV properties parse: little-endian integers, strings")
    func tlvParse() {
        var p = ReaderProperties()
        p.tlvProperties = ReaderProperties.parseTLVProperties(Self.tlv)
        #expect(p.maxAPDUDataSize == 0x1_0000)
        #expect(p.usbID?.vendor == 0x072F && p.usbID?.product == 0x2200)
        #expect(p.firmwareID == "1.0")
        var q = ReaderProperties()
        q.tlvProperties = ReaderProperties.parseTLVProperties(flipBit(Self.tlv, at: 10, bit: 0))
        #expect(q.maxAPDUDataSize == 0x1_0001, "one flipped bit in dwMaxAPDUDataSize changes the value read")
    }

    static func props(maxData: UInt32?) -> ReaderProperties {
        var p = ReaderProperties()
        if let maxData {
            p.tlvProperties[ReaderProperties.propertyMaxAPDUDataSize] = withUnsafeBytes(
                of: maxData.littleEndian, Array.init)
        }
        return p
    }

    static func profile(_ ext: Bool?, cmd: Int? = nil, resp: Int? = nil) -> ReaderProfile {
        ReaderProfile(
            id: "p", vendor: "v", model: "m", match: ["*"], extendedLength: ext, maxCommandSize: cmd,
            maxResponseSize: resp, quirks: [], sources: [.init(title: "t", url: "u")], status: "untested",
            testedWith: nil, notes: nil)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let maxData: UInt32?
        let profile: ReaderProfile?
        let extended: Bool
        let known: Bool
        let cmd: Int
        let resp: Int
        let source: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "neither source: unknown, short sizes, probe", maxData: nil, profile: nil,
            extended: false, known: false, cmd: 261, resp: 258, source: "unknown"),
        Case(
            name: "driver short only", maxData: 0, profile: nil, extended: false, known: true, cmd: 261, resp: 258,
            source: "reader"),
        Case(
            name: "driver extended 64K", maxData: 65536, profile: nil, extended: true, known: true, cmd: 65544,
            resp: 65538, source: "reader"),
        Case(
            name: "driver extended 1024", maxData: 1024, profile: nil, extended: true, known: true, cmd: 1033,
            resp: 1026, source: "reader"),
        Case(
            name: "profile only", maxData: nil, profile: profile(true, cmd: 3000, resp: 4000),
            extended: true, known: true, cmd: 3000, resp: 4000, source: "profile"),
        Case(
            name: "profile without extended knowledge counts as unknown", maxData: nil, profile: profile(nil),
            extended: false, known: false, cmd: 261, resp: 258, source: "unknown"),
        Case(
            name: "profile quirk: short only overrides the driver", maxData: 65536, profile: profile(false),
            extended: false, known: true, cmd: 261, resp: 258, source: "reader+profile"),
        Case(
            name: "driver short only: profile cannot widen", maxData: 0, profile: profile(true),
            extended: false, known: true, cmd: 261, resp: 258, source: "reader+profile"),
        Case(
            name: "both extended: the smaller sizes", maxData: 65536, profile: profile(true, cmd: 2000, resp: 65538),
            extended: true, known: true, cmd: 2000, resp: 65538, source: "reader+profile"),
    ]

    @Test("combining driver properties and profile", arguments: cases)
    func combine(_ c: Case) {
        let report = ReaderCapabilityReport(
            readerName: "R 00 00", properties: Self.props(maxData: c.maxData), profile: c.profile)
        #expect(report.capabilities.supportsExtendedLength == c.extended)
        #expect(report.capabilities.isKnown == c.known)
        #expect(report.capabilities.maxCommandSize == c.cmd)
        #expect(report.capabilities.maxResponseSize == c.resp)
        #expect(report.source == c.source)
        #expect(!report.notes.isEmpty)
    }
}
