import Testing

@testable import MRTDTrust

/// ICAO 9303-3 issuing-state codes against certificate countryName values.
struct CountryCodesTests {
    static let matching: [(String, String)] = [
        ("D", "DE"), ("D<<", "DE"), ("D", "DEU"), ("DEU", "DE"), ("NLD", "NL"), ("UTO", "UT"), ("UTO", "ZZ"),
        ("EUE", "EU"), ("UNO", "UN"), ("UNA", "UN"), ("UNK", "UN"), ("RKS", "XK"), ("GBR", "GB"), ("GBD", "GB"),
        ("COL", "CO"), ("CHE", "CH"), ("XPO", "XPO"), ("nld", "nl"),
    ]
    static let mismatching: [(String, String)] = [
        ("D", "NL"), ("NLD", "DE"), ("DEU", "D"), ("XPO", "XP"), ("XXA", "XX"), ("UTO", "DE"), ("AUT", "AU"),
        ("", "DE"),
    ]

    @Test(arguments: matching)
    func matches(_ pair: (String, String)) {
        #expect(CountryCodes.matches(certificateCountry: pair.1, issuingState: pair.0))
    }

    @Test(arguments: mismatching)
    func doesNotMatch(_ pair: (String, String)) {
        #expect(!CountryCodes.matches(certificateCountry: pair.1, issuingState: pair.0))
    }

    @Test func everyISOAlpha3MapsToADistinctAlpha2() {
        #expect(CountryCodes.iso3166.count == 249)
        #expect(Set(CountryCodes.iso3166.values).count == 249)
        #expect(CountryCodes.iso3166.allSatisfy { $0.key.count == 3 && $0.value.count == 2 })
        #expect(CountryCodes.certificateCountries(forIssuingState: "XXA").isEmpty)
    }
}
