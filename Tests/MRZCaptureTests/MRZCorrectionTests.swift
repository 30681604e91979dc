import DocumentGenerator
import MRTDDocument
import Testing

@testable import MRZCapture

/// The check-digit correction: confusions are fixed by the field's character class, alphanumeric ones only when a
/// single reading makes every check digit hold; anything else is refused.
struct MRZCorrectionTests {
    static let td3 = Specimen.utopiaPassport.mrzLines
    static let td1 = Specimen.utopiaIDCard.mrzLines

    static func chars(_ lines: [String]) -> [[Character]] { lines.map(Array.init) }

    static func replacing(_ lines: [String], line: Int, at i: Int, with c: Character) -> [[Character]] {
        var l = chars(lines)
        l[line][i] = c
        return l
    }

    @Test func aCorrectZoneIsAcceptedUnchanged() throws {
        let r = try #require(MRZCorrection.correct(Self.chars(Self.td3), format: .td3))
        #expect(r.mrz.lines == Self.td3)
        #expect(r.changes == 0)
    }

    @Test(arguments: [
        (13, Character("O")), (14, "I"), (15, "Z"), (19, "S"), (22, "B"), (27, "G"),
    ])
    func aLetterInANumericFieldIsReadAsItsDigit(position: Int, letter: Character) throws {
        // line 2 positions 13…18 date of birth, 19 its check digit, 21…26 date of expiry, 27 its check digit
        var lines = Self.chars(Self.td3)
        let original = lines[1][position]
        guard MRZCorrection.letterAsDigit[letter] == original else { return }  // only the confusions that apply
        lines[1][position] = letter
        let r = try #require(MRZCorrection.correct(lines, format: .td3))
        #expect(r.mrz.lines == Self.td3)
        #expect(r.changes == 1)
    }

    @Test func aDigitInTheNationalityIsReadAsItsLetter() throws {
        // "UTO": the O read as 0
        let r = try #require(MRZCorrection.correct(Self.replacing(Self.td3, line: 1, at: 12, with: "0"), format: .td3))
        #expect(r.mrz.lines == Self.td3)
    }

    @Test(arguments: [Character("O"), "D", "Q"])
    func aDocumentNumberConfusionIsResolvedByItsCheckDigits(misread: Character) throws {
        // L898902C3: its 0 read as a letter; only the 0 makes the number's and the composite check hold
        let r = try #require(
            MRZCorrection.correct(Self.replacing(Self.td3, line: 1, at: 5, with: misread), format: .td3))
        #expect(r.mrz.lines == Self.td3)
        #expect(r.changes == 1)
    }

    @Test func anAmbiguousConfusionIsRefused() {
        // L898902C3 with its first 8 read as B: LB98902C3 → L898902C3, but also LB9B902C3 and LB9890ZC3 make every
        // check digit hold, so none is chosen
        #expect(MRZCorrection.correct(Self.replacing(Self.td3, line: 1, at: 1, with: "B"), format: .td3) == nil)
    }

    @Test func aWrongCharacterOutsideTheConfusionsIsRefused() {
        // the document number's 9 read as 4: no rule turns it back, the check digits fail
        #expect(MRZCorrection.correct(Self.replacing(Self.td3, line: 1, at: 2, with: "4"), format: .td3) == nil)
        // a date digit read as a letter that is no digit's twin
        #expect(MRZCorrection.correct(Self.replacing(Self.td3, line: 1, at: 14, with: "X"), format: .td3) == nil)
    }

    @Test func aKAfterTheNameIsAFillerAndAnyOtherLetterThereIsRefused() throws {
        // TD1 line 3: ERIKSSON<<ANNA<MARIA<<<<<<<<<<; position 25 lies after at least three fillers
        let k = try #require(MRZCorrection.correct(Self.replacing(Self.td1, line: 2, at: 25, with: "K"), format: .td1))
        #expect(k.mrz.lines == Self.td1)
        #expect(MRZCorrection.correct(Self.replacing(Self.td1, line: 2, at: 25, with: "S"), format: .td1) == nil)
        // a second "<<" separator inside the name
        #expect(MRZCorrection.correct(Self.replacing(Self.td1, line: 2, at: 13, with: "<"), format: .td1) == nil)
    }

    @Test func checkDigitsCannotTellGFrom6NorKFromAFiller() {
        // G = 16 and 6, K = 20 and '<' = 0 are equal modulo 10: every check digit holds either way
        for (a, b) in [("G", "6"), ("K", "<")] {
            #expect(MRZCheckDigit.compute("AB" + a + "12") == MRZCheckDigit.compute("AB" + b + "12"))
            #expect(MRZCorrection.alternatives[Character(a)]?.contains(Character(b)) != true)
            #expect(MRZCorrection.alternatives[Character(b)]?.contains(Character(a)) != true)
        }
    }

    @Test func twoReadingsMustAgreeWhereTheCheckDigitsCannotTell() {
        let a = Self.chars(Self.td3)
        #expect(MRZCorrection.agree(a, a, format: .td3))
        // a date digit may differ (its check digit catches it) …
        #expect(MRZCorrection.agree(a, Self.replacing(Self.td3, line: 1, at: 14, with: "5"), format: .td3))
        // … a name letter, or G/6 in the document number, may not
        #expect(!MRZCorrection.agree(a, Self.replacing(Self.td3, line: 0, at: 6, with: "P"), format: .td3))
        #expect(!MRZCorrection.agree(a, Self.replacing(Self.td3, line: 1, at: 3, with: "G"), format: .td3))
        // a digit read for its letter in a letters-only field is the same reading
        #expect(MRZCorrection.agree(a, Self.replacing(Self.td3, line: 0, at: 4, with: "0"), format: .td3))
    }

    @Test func onlyAFieldTwoCheckDigitsWatchIsCorrected() {
        // TD1 optional data (only the composite check watches it): its 8 read as B is not corrected
        var id = Specimen.utopiaIDCard
        id.optionalData = "8A"
        let lines = id.mrzLines
        #expect(MRZCorrection.correct(Self.chars(lines), format: .td1) != nil)
        #expect(MRZCorrection.correct(Self.replacing(lines, line: 0, at: 15, with: "B"), format: .td1) == nil)
    }

    @Test func aLineOfTheWrongLengthOrFormatIsRefused() {
        var short = Self.chars(Self.td3)
        short[0].removeLast()
        #expect(MRZCorrection.correct(short, format: .td3) == nil)
        #expect(MRZCorrection.correct(Self.chars(Self.td3), format: .td2) == nil)
    }
}
