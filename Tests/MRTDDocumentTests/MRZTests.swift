import MRTDDocument
import Testing

/// Published MRZ specimens (ICAO Doc 9303 parts 3–5 and the published DG1 examples collected for this project) and hand-built visas; expected values are
/// the printed fields, the printed check digits and the published MRZ_information.
struct MRZTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let lines: [String]
        let format: MRZFormat
        let documentCode: String
        let issuingState: String
        let primary: String
        let secondary: String
        let documentNumber: String
        let nationality: String
        let birth: String
        let sex: MRZSex
        let expiry: String
        let optional: String
        let mrzInformation: String?
        /// Checks expected to fail (only the inconsistent 9303-10 A.2.1 composite).
        var failing: [MRZCheck.Field] = []
        var long = false
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "TD3 Utopia (9303-4 App. B)",
            lines: ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"],
            format: .td3, documentCode: "P", issuingState: "UTO", primary: "ERIKSSON", secondary: "ANNA MARIA",
            documentNumber: "L898902C3", nationality: "UTO", birth: "740812", sex: .female, expiry: "120415",
            optional: "ZE184226B", mrzInformation: "L898902C3674081221204159"),
        Case(
            name: "TD3 old specimen (9303-11 D.1)",
            lines: ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C<3UTO6908061F9406236ZE184226B<<<<<14"],
            format: .td3, documentCode: "P", issuingState: "UTO", primary: "ERIKSSON", secondary: "ANNA MARIA",
            documentNumber: "L898902C", nationality: "UTO", birth: "690806", sex: .female, expiry: "940623",
            optional: "ZE184226B", mrzInformation: "L898902C<369080619406236"),
        Case(
            name: "TD1 Utopia (9303-5)",
            lines: [
                "I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
            ],
            format: .td1, documentCode: "I", issuingState: "UTO", primary: "ERIKSSON", secondary: "ANNA MARIA",
            documentNumber: "D23145890", nationality: "UTO", birth: "740812", sex: .female, expiry: "120415",
            optional: "", mrzInformation: "D23145890774081221204159"),
        Case(
            name: "TD2 Utopia (9303-6)",
            lines: ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159<<<<<<<6"],
            format: .td2, documentCode: "I", issuingState: "UTO", primary: "ERIKSSON", secondary: "ANNA MARIA",
            documentNumber: "D23145890", nationality: "UTO", birth: "740812", sex: .female, expiry: "120415",
            optional: "", mrzInformation: "D23145890774081221204159"),
        Case(
            name: "TD1 long document number (9303-11 D.2)",
            lines: [
                "I<UTOD23145890<7349<<<<<<<<<<<", "3407127M9507122UTO<<<<<<<<<<<2", "STEVENSON<<PETER<JOHN<<<<<<<<<",
            ],
            format: .td1, documentCode: "I", issuingState: "UTO", primary: "STEVENSON", secondary: "PETER JOHN",
            documentNumber: "D23145890734", nationality: "UTO", birth: "340712", sex: .male, expiry: "950712",
            optional: "", mrzInformation: "D23145890734934071279507122", long: true),
        Case(
            name: "TD2 long document number (9303-11 D.2)",
            lines: ["I<UTOSTEVENSON<<PETER<JOHN<<<<<<<<<<", "D23145890<UTO3407127M95071227349<<<8"],
            format: .td2, documentCode: "I", issuingState: "UTO", primary: "STEVENSON", secondary: "PETER JOHN",
            documentNumber: "D23145890734", nationality: "UTO", birth: "340712", sex: .male, expiry: "950712",
            optional: "", mrzInformation: "D23145890734934071279507122", long: true),
        Case(
            name: "TD1 NLD (9303-10 A.2.1, inconsistent composite)",
            lines: [
                "I<NLDXI85935F86999999990<<<<<<", "7208148F1108268NLD<<<<<<<<<<<4", "VAN<DER<STEEN<<MARIANNE<LOUISE",
            ],
            format: .td1, documentCode: "I", issuingState: "NLD", primary: "VAN DER STEEN",
            secondary: "MARIANNE LOUISE",
            documentNumber: "XI85935F8", nationality: "NLD", birth: "720814", sex: .female, expiry: "110826",
            optional: "999999990", mrzInformation: "XI85935F8672081481108268", failing: [.composite]),
        Case(
            name: "TD3 BSI TR-03105-5 Mustermann",
            lines: ["P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<", "C11T002JM4D<<9608122F2310314<<<<<<<<<<<<<<<4"],
            format: .td3, documentCode: "P", issuingState: "D", primary: "MUSTERMANN", secondary: "ERIKA",
            documentNumber: "C11T002JM", nationality: "D", birth: "960812", sex: .female, expiry: "231031",
            optional: "", mrzInformation: "C11T002JM496081222310314"),
        // Hand-built zones whose optional data fills its field (so that every composite position carries
        // weight), check digits computed independently.
        Case(
            name: "TD2 full optional data",
            lines: ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "D231458907UTO7408122F1204159AB12CD96"],
            format: .td2, documentCode: "I", issuingState: "UTO", primary: "ERIKSSON", secondary: "ANNA MARIA",
            documentNumber: "D23145890", nationality: "UTO", birth: "740812", sex: .female, expiry: "120415",
            optional: "AB12CD9", mrzInformation: "D23145890774081221204159"),
        Case(
            name: "TD1 full optional data",
            lines: [
                "I<UTOD231458907OPT1ABC<<<<<<<<", "7408122F1204159UTOXYZ123456788", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<",
            ],
            format: .td1, documentCode: "I", issuingState: "UTO", primary: "ERIKSSON", secondary: "ANNA MARIA",
            documentNumber: "D23145890", nationality: "UTO", birth: "740812", sex: .female, expiry: "120415",
            optional: "OPT1ABC", mrzInformation: "D23145890774081221204159"),
        Case(
            name: "TD3 full personal number",
            lines: ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B1234508"],
            format: .td3, documentCode: "P", issuingState: "UTO", primary: "ERIKSSON", secondary: "ANNA MARIA",
            documentNumber: "L898902C3", nationality: "UTO", birth: "740812", sex: .female, expiry: "120415",
            optional: "ZE184226B12345", mrzInformation: "L898902C3674081221204159"),
        // Hand-built visas (9303-7 layouts), check digits computed independently.
        Case(
            name: "MRV-A hand-built",
            lines: ["V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L8988901C4XXX4009078F9612109ZE184226B<<<<<<<"],
            format: .mrvA, documentCode: "V", issuingState: "UTO", primary: "ERIKSSON", secondary: "ANNA MARIA",
            documentNumber: "L8988901C", nationality: "XXX", birth: "400907", sex: .female, expiry: "961210",
            optional: "ZE184226B", mrzInformation: "L8988901C440090789612109"),
        Case(
            name: "MRV-B hand-built",
            lines: ["V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<", "L8988901C4XXX4009078F96121096ZE1842<"],
            format: .mrvB, documentCode: "V", issuingState: "UTO", primary: "ERIKSSON", secondary: "ANNA MARIA",
            documentNumber: "L8988901C", nationality: "XXX", birth: "400907", sex: .female, expiry: "961210",
            optional: "6ZE1842", mrzInformation: "L8988901C440090789612109"),
    ]

    @Test(arguments: cases)
    func parsesEveryField(_ c: Case) throws {
        for text in [c.lines.joined(separator: "\n"), c.lines.joined(), c.lines.joined(separator: "\r\n") + "\n"] {
            let mrz = try MRZ(text)
            #expect(mrz.format == c.format)
            #expect(mrz.lines == c.lines)
            #expect(mrz.documentCode == c.documentCode)
            #expect(mrz.issuingState == c.issuingState)
            #expect(mrz.primaryIdentifier == c.primary)
            #expect(mrz.secondaryIdentifier == c.secondary)
            #expect(mrz.documentNumber == c.documentNumber)
            #expect(mrz.hasLongDocumentNumber == c.long)
            #expect(mrz.nationality == c.nationality)
            #expect(mrz.dateOfBirth.raw == c.birth)
            #expect(mrz.sex == c.sex)
            #expect(mrz.dateOfExpiry.raw == c.expiry)
            #expect(mrz.optionalData == c.optional)
            #expect(mrz.keyInfo.mrzInformation == c.mrzInformation)
            #expect(mrz.checks.filter { !$0.isValid }.map(\.field) == c.failing)
            #expect(mrz.isValid == c.failing.isEmpty)
            let expectedChecks: Set<MRZCheck.Field> =
                switch c.format {
                case .td3: [.documentNumber, .dateOfBirth, .dateOfExpiry, .optionalData, .composite]
                case .td1, .td2: [.documentNumber, .dateOfBirth, .dateOfExpiry, .composite]
                case .mrvA, .mrvB: [.documentNumber, .dateOfBirth, .dateOfExpiry]
                }
            #expect(Set(mrz.checks.map(\.field)) == expectedChecks)
            #expect(!mrz.description.contains(c.documentNumber))
        }
    }

    /// The A.2.1 composite: printed 4, the algorithm gives 8 (vectors README §14.6).
    @Test func nldCompositeComputedValue() throws {
        let mrz = try MRZ(try #require(Self.cases.first { !$0.failing.isEmpty }).lines.joined())
        #expect(mrz.check(.composite)?.computed == 8)
        #expect(mrz.check(.composite)?.printed == "4")
        #expect(throws: LDSParseError.self) { try mrz.validate() }
    }

    /// Negative twins: change one check digit of each valid specimen → exactly that check fails.
    @Test(arguments: cases.filter { $0.failing.isEmpty })
    func wrongCheckDigitTwin(_ c: Case) throws {
        let valid = try MRZ(c.lines.joined())
        #expect(throws: Never.self) { try valid.validate() }
        let raw = Array(c.lines.joined())
        // Position of each check digit in the joined MRZ, per format.
        let positions: [(MRZCheck.Field, Int)] =
            switch c.format {
            case .td3:
                [
                    (.documentNumber, 44 + 9), (.dateOfBirth, 44 + 19), (.dateOfExpiry, 44 + 27),
                    (.optionalData, 44 + 42), (.composite, 44 + 43),
                ]
            case .td2 where c.long: [(.documentNumber, 36 + 31), (.dateOfBirth, 36 + 19), (.composite, 36 + 35)]
            case .td2:
                [(.documentNumber, 36 + 9), (.dateOfBirth, 36 + 19), (.dateOfExpiry, 36 + 27), (.composite, 36 + 35)]
            case .td1 where c.long: [(.documentNumber, 18), (.dateOfBirth, 30 + 6), (.composite, 30 + 29)]
            case .td1: [(.documentNumber, 14), (.dateOfBirth, 30 + 6), (.dateOfExpiry, 30 + 14), (.composite, 30 + 29)]
            case .mrvA, .mrvB:
                [
                    (.documentNumber, c.format.lineLength + 9), (.dateOfBirth, c.format.lineLength + 19),
                    (.dateOfExpiry, c.format.lineLength + 27),
                ]
            }
        for (field, p) in positions {
            var m = raw
            let d = m[p].wholeNumberValue ?? 0
            m[p] = Character(String((d + 1) % 10))
            let twin = try MRZ(String(m))
            #expect(twin.check(field)?.isValid == false, "\(field)")
            // The composite covers the other fields' check digits too, so only the changed check and possibly the
            // composite fail.
            #expect(twin.checks.filter { !$0.isValid }.allSatisfy { $0.field == field || $0.field == .composite })
            let e = #expect(throws: LDSParseError.self) { try twin.validate() }
            #expect(e?.code == .checkDigitMismatch)
        }
    }

    @Test(arguments: [
        ("", "empty"),
        ("P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<1", "short line"),
        ("p<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<L898902C36UTO7408122F1204159ZE184226B<<<<<10", "lowercase"),
        ("P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10<", "uneven lines"),
        ("P<UTOÉRIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<L898902C36UTO7408122F1204159ZE184226B<<<<<10", "non-ASCII"),
    ])
    func rejectsMalformed(_ text: String, _ why: String) {
        let e = #expect(throws: LDSParseError.self, "\(why)") { try MRZ(text) }
        #expect(e?.code == .invalidMRZ)
    }

    @Test func centuryResolution() {
        let ref = CalendarDate(year: 2026, month: 11, day: 29)
        #expect(
            MRZDate(raw: "740812").resolvedAsBirthDate(reference: ref) == CalendarDate(year: 1974, month: 8, day: 12))
        #expect(
            MRZDate(raw: "260101").resolvedAsBirthDate(reference: ref) == CalendarDate(year: 2026, month: 1, day: 1))
        #expect(
            MRZDate(raw: "261231").resolvedAsBirthDate(reference: ref) == CalendarDate(year: 1926, month: 12, day: 31))
        #expect(
            MRZDate(raw: "120415").resolvedAsExpiryDate(reference: ref) == CalendarDate(year: 2012, month: 4, day: 15))
        #expect(
            MRZDate(raw: "460101").resolvedAsExpiryDate(reference: ref) == CalendarDate(year: 2046, month: 1, day: 1))
        #expect(
            MRZDate(raw: "470101").resolvedAsExpiryDate(reference: ref) == CalendarDate(year: 1947, month: 1, day: 1))
        #expect(
            MRZDate(raw: "47<<<<").resolvedAsExpiryDate(reference: ref, yearsAhead: 30)
                == CalendarDate(year: 2047, month: 0, day: 0))
        #expect(MRZDate(raw: "<<<<<<").resolvedAsBirthDate(reference: ref) == nil)
        #expect(!MRZDate(raw: "741312").isPlausible)
        #expect(MRZDate(raw: "740812").description == "MRZDate(redacted)")
    }

    @Test func keyInfoFromFields() {
        // 9303-11 App. D.1: L898902C< / 690806 / 940623 → L898902C<369080619406236.
        let k = MRZKeyInfo(documentNumber: "L898902C", dateOfBirth: "690806", dateOfExpiry: "940623")
        #expect(k.mrzInformation == "L898902C<369080619406236")
        #expect(
            MRZKeyInfo(documentNumber: "l898902c", dateOfBirth: "690806", dateOfExpiry: "940623").mrzInformation == nil)
        #expect(k.description == "MRZKeyInfo(redacted)")
    }
}
