import ASN1TLV
import Testing

@testable import MRTDTrust

/// The byte-level canonical form of ASCII name values must equal the Unicode-aware one.
@Suite struct CanonicalNameTests {
    static func slow(_ s: String) -> String {
        var out = ""
        for c in s.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ").lowercased() {
            if [",", "+", "=", "\\", "#"].contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }

    @Test(arguments: [
        "CSCA Germany", "  csca-germany ", "Bundesdruckerei\tGmbH", "A,B+C=D#E\\F", "UTO", "", "  ",
        "Ministry  of\nInterior",
    ])
    func asciiFastPathMatchesTheGeneralForm(_ value: String) {
        #expect(DistinguishedName.canonicalValue(value) == Self.slow(value))
    }

    @Test func nonASCIIValuesAreFoldedToo() {
        #expect(DistinguishedName.canonicalValue("Ærø  KOMMUNE") == "ærø kommune")
    }

    static func atv(_ oid: String, _ value: [UInt8]) -> [UInt8] { DER.sequence(DER.objectIdentifier(oid), value) }
    static func name(_ rdns: [[UInt8]]...) -> [UInt8] { DER.sequence(rdns.map { DER.set($0) }) }

    @Test func multiValuedRDNsCompareAsSets() throws {
        let cn = Self.atv("2.5.4.3", DER.printableString("CSCA"))
        let o = Self.atv("2.5.4.10", DER.utf8String("Ministry"))
        let c = Self.atv("2.5.4.6", DER.printableString("UT"))
        let a = try DistinguishedName(encoded: Self.name([c], [cn, o]))
        let b = try DistinguishedName(encoded: Self.name([c], [o, cn]))
        #expect(a == b)
        #expect(a.canonical == b.canonical)
        #expect(a.rdns.map(\.count) == [1, 2])
        // The same attributes as separate RDNs are a different name; so is another value.
        #expect(a != (try DistinguishedName(encoded: Self.name([c], [cn], [o]))))
        #expect(
            a
                != (try DistinguishedName(
                    encoded: Self.name([c], [cn, Self.atv("2.5.4.10", DER.utf8String("Ministrz"))]))))
        // RDN order matters.
        #expect(a != (try DistinguishedName(encoded: Self.name([cn, o], [c]))))
    }

    @Test func stringTypesFoldToTheSameForm() throws {
        // "Ærø" as UTF8String and as BMPString (UTF-16BE), with different case and spacing.
        let utf8 = try DistinguishedName(encoded: Self.name([Self.atv("2.5.4.3", DER.utf8String("Ærø  Kommune"))]))
        let bmpValue = TLVWriter.encode(
            0x1E, Array("ærø kommune".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        let bmp = try DistinguishedName(encoded: Self.name([Self.atv("2.5.4.3", bmpValue)]))
        #expect(utf8 == bmp)
        #expect(utf8.commonName == "Ærø  Kommune")
        // A value that is not a character string compares by its encoding.
        let octets = try DistinguishedName(encoded: Self.name([Self.atv("2.5.4.3", DER.octetString([0x41]))]))
        let printable = try DistinguishedName(encoded: Self.name([Self.atv("2.5.4.3", DER.printableString("A"))]))
        #expect(octets != printable)
        #expect(octets.rdns[0][0].value == nil)
        #expect(octets.description.contains("#"))
    }

    @Test func malformedNamesAreRefused() {
        let good = Self.name([Self.atv("2.5.4.6", DER.printableString("UT"))])
        #expect((try? DistinguishedName(encoded: good)) != nil)
        #expect(throws: TrustError.self) { try DistinguishedName(encoded: good + [0x00]) }  // trailing byte
        #expect(throws: TrustError.self) { try DistinguishedName(encoded: DER.sequence(DER.set([]))) }  // empty RDN
        #expect(throws: TrustError.self) {  // attribute type is not an OID
            try DistinguishedName(
                encoded: DER.sequence(DER.set([DER.sequence(DER.integer(1), DER.printableString("UT"))])))
        }
        #expect(throws: TrustError.self) {  // OID with a leading 0x80 arc octet
            try DistinguishedName(
                encoded: DER.sequence(
                    DER.set([DER.sequence(TLVWriter.encode(0x06, [0x55, 0x80, 0x06]), DER.printableString("UT"))])))
        }
        #expect(throws: TrustError.self) {  // an attribute with three fields
            try DistinguishedName(
                encoded: DER.sequence(
                    DER.set([DER.sequence(DER.objectIdentifier("2.5.4.6"), DER.printableString("UT"), DER.null())])))
        }
    }
}
