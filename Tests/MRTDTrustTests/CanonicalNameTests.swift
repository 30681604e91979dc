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

    @Test(arguments: ["CSCA Germany", "  csca-germany ", "Bundesdruckerei\tGmbH", "A,B+C=D#E\\F", "UTO", "", "  ", "Ministry  of\nInterior"])
    func asciiFastPathMatchesTheGeneralForm(_ value: String) {
        #expect(DistinguishedName.canonicalValue(value) == Self.slow(value))
    }

    @Test func nonASCIIValuesAreFoldedToo() {
        #expect(DistinguishedName.canonicalValue("Ærø  KOMMUNE") == "ærø kommune")
    }
}
