import DocumentGenerator
import MRTDDocument
import Testing

@testable import MRZCapture

/// The decision from the classifier's scores: each position takes the best glyph of its character class; a
/// runner-up too close to the best is settled only by the check digits, and only when exactly one combination of
/// the candidates makes them all hold; in a field no check digit watches (names, codes, sex) it is settled only by
/// a second opinion that names the best, or the zone is refused.
struct MRZCorrectionTests {
    static let td3 = Specimen.utopiaPassport.mrzLines
    static let td1 = Specimen.utopiaIDCard.mrzLines
    static let classes = OCRBClassifier.classes

    /// Scores as a sharp print of `lines` would give them: each glyph's similarity to the printed one.
    static func scores(_ lines: [String]) -> [[[Float]]] {
        lines.map { line in
            line.map { c in OCRBClassifier.similarity[OCRBClassifier.classIndex[c]!] }
        }
    }

    /// The cell at `line`, `index` made to score `a` at `sa` and `b` at `sb`, every other glyph low.
    static func cell(
        _ s: inout [[[Float]]], _ line: Int, _ index: Int, _ a: Character, _ sa: Float, _ b: Character,
        _ sb: Float
    ) {
        var v = [Float](repeating: 0.2, count: classes.count)
        v[OCRBClassifier.classIndex[a]!] = sa
        v[OCRBClassifier.classIndex[b]!] = sb
        s[line][index] = v
    }

    @Test func aSharpPrintIsReadUnchanged() throws {
        for lines in [Self.td3, Self.td1] {
            let format: MRZFormat = lines.count == 3 ? .td1 : .td3
            let r = try #require(MRZCorrection.decide(Self.scores(lines), format: format))
            #expect(r.mrz.lines == lines)
            #expect(r.changes == 0)
            #expect(r.confidence > 0.99)
        }
    }

    @Test func aNumericPositionTakesTheBestDigitAndCountsTheChange() throws {
        // line 2 position 13: the date of birth's first digit (7 in 740812), scoring best as the letter T
        var s = Self.scores(Self.td3)
        Self.cell(&s, 1, 13, "T", 0.95, "7", 0.9)
        let r = try #require(MRZCorrection.decide(s, format: .td3))
        #expect(r.mrz.lines == Self.td3)
        #expect(r.changes == 1)
    }

    @Test func aCloseRunnerUpInTheDocumentNumberIsSettledByItsCheckDigits() throws {
        // L898902C3: its 0 (position 5) scoring as O just as well; only 0 makes the check digits hold
        var s = Self.scores(Self.td3)
        Self.cell(&s, 1, 5, "O", 0.93, "0", 0.92)
        let r = try #require(MRZCorrection.decide(s, format: .td3))
        #expect(r.mrz.lines == Self.td3)
        #expect(r.changes == 1)
    }

    @Test func gAgainst6OrKAgainstAFillerIsRefused() {
        // G = 16 and 6, K = 20 and '<' = 0 are equal modulo 10: no check digit can tell them apart
        for (a, b) in [(Character("G"), Character("6")), ("K", "<")] {
            #expect(MRZCheckDigit.compute("AB\(a)12") == MRZCheckDigit.compute("AB\(b)12"))
        }
        var id = Specimen.utopiaIDCard
        id.documentNumber = "D23145890"
        id.optionalData = "6A"
        let lines = id.mrzLines
        #expect(MRZCorrection.decide(Self.scores(lines), format: .td1) != nil)
        var s = Self.scores(lines)
        Self.cell(&s, 0, 15, "6", 0.93, "G", 0.92)
        #expect(MRZCorrection.decide(s, format: .td1) == nil)
    }

    @Test func aCloseRunnerUpInANameIsRefusedUnlessASecondOpinionNamesTheBest() throws {
        // TD3 line 1 position 5: the E of ERIKSSON, scoring as F almost as well
        var s = Self.scores(Self.td3)
        Self.cell(&s, 0, 5, "E", 0.93, "F", 0.92)
        #expect(MRZCorrection.decide(s, format: .td3) == nil)
        let confirmed = try #require(MRZCorrection.decide(s, format: .td3) { _, _, best in best == "E" })
        #expect(confirmed.mrz.lines == Self.td3)
        #expect(MRZCorrection.decide(s, format: .td3) { _, _, _ in false } == nil)
    }

    @Test func aCellUnlikeEveryGlyphIsRefused() {
        var s = Self.scores(Self.td3)
        s[0][7] = [Float](repeating: 0.3, count: Self.classes.count)
        #expect(MRZCorrection.decide(s, format: .td3) == nil)
    }

    @Test func aRunOfPoorCellsInALineIsRefusedEvenWithClearWinners() throws {
        // cells whose best glyph correlates only 0.65, each far ahead of the rest: two are tolerated, three mean a
        // stretch of the line was cut in the wrong place
        var s = Self.scores(Self.td3)
        let line = Array(Self.td3[0])
        for i in [6, 7] { Self.cell(&s, 0, i, line[i], 0.65, "X", 0.1) }
        let two = try #require(MRZCorrection.decide(s, format: .td3))
        #expect(two.mrz.lines == Self.td3)
        Self.cell(&s, 0, 8, line[8], 0.65, "X", 0.1)
        #expect(MRZCorrection.decide(s, format: .td3) == nil)
    }

    @Test func aNameWithLettersAfterItsFillersIsRefused() {
        // TD1 line 3: ERIKSSON<<ANNA<MARIA<<<<<<<<<<; a letter after three fillers, then a second "<<" separator
        var after = Array(Self.td1[2])
        after[25] = "S"
        #expect(MRZCorrection.decide(Self.scores([Self.td1[0], Self.td1[1], String(after)]), format: .td1) == nil)
        var second = Array(Self.td1[2])
        second[13] = "<"
        #expect(MRZCorrection.decide(Self.scores([Self.td1[0], Self.td1[1], String(second)]), format: .td1) == nil)
    }

    @Test func aWrongDigitIsCaughtByItsCheckDigit() {
        // the date of birth's 4 scoring clearly as 1: its check digit fails, nothing is guessed
        var s = Self.scores(Self.td3)
        Self.cell(&s, 1, 14, "1", 0.95, "4", 0.3)
        #expect(MRZCorrection.decide(s, format: .td3) == nil)
    }

    @Test func theWrongNumberOfLinesOrCellsIsRefused() {
        var s = Self.scores(Self.td3)
        s[0].removeLast()
        #expect(MRZCorrection.decide(s, format: .td3) == nil)
        #expect(MRZCorrection.decide(Self.scores(Self.td3), format: .td2) == nil)
    }
}
