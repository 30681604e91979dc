import MRTDDocument

/// Turns the classifier's scores into an MRZ whose every check digit holds (ICAO 9303-3 §4.9), or refuses.
///
/// Each position of a format has a character class (9303-4 §4.2.2, -5 §4.2.2, -6 §4.2.2): numeric fields (dates,
/// check digits) take digits only, alphabetic fields (codes, states, names) letters and fillers, alphanumeric fields
/// (document number, optional data) either. Only the glyphs of the class compete at a position, so a cell that looks
/// most like O in a date is read as its best digit. A close runner-up is settled by the check digits where they
/// watch (exactly one combination must make them all hold), elsewhere by a second opinion, or the zone is refused.
enum MRZCorrection {
    enum Kind { case alpha, numeric, alnum, sex, check, checkOrFiller }

    /// The class of each position, line by line.
    static func layout(_ format: MRZFormat) -> [[Kind]] {
        func run(_ k: Kind, _ n: Int) -> [Kind] { Array(repeating: k, count: n) }
        switch format {
        case .td1:
            return [
                run(.alpha, 5) + run(.alnum, 9) + [.checkOrFiller] + run(.alnum, 15),
                run(.numeric, 6) + [.check, .sex] + run(.numeric, 6) + [.check] + run(.alpha, 3) + run(.alnum, 11)
                    + [.check],
                run(.alpha, 30),
            ]
        case .td2, .mrvB:
            return [
                run(.alpha, 36),
                run(.alnum, 9) + [.checkOrFiller] + run(.alpha, 3) + run(.numeric, 6) + [.check, .sex]
                    + run(.numeric, 6) + [.check] + run(.alnum, 7) + [.check],
            ]
        case .td3, .mrvA:
            return [
                run(.alpha, 44),
                run(.alnum, 9) + [.check] + run(.alpha, 3) + run(.numeric, 6) + [.check, .sex] + run(.numeric, 6)
                    + [.check] + run(.alnum, 14) + [.checkOrFiller, .check],
            ]
        }
    }

    /// The letter a digit-shaped reading of a letters-only cell stands for (the second opinion's O/0, I/1, …).
    static let digitAsLetter: [Character: Character] = ["0": "O", "1": "I", "2": "Z", "5": "S", "6": "G", "8": "B"]
    /// The classes a position of `kind` may hold (indices into `OCRBClassifier.classes`).
    static func allowed(_ kind: Kind) -> [Int] {
        let c = OCRBClassifier.classIndex
        let digits = Array(0..<10)
        let letters = Array(10..<36)
        let filler = c["<"]!
        switch kind {
        case .numeric, .check: return digits
        case .checkOrFiller: return digits + [filler]
        case .alpha: return letters + [filler]
        case .alnum: return digits + letters + [filler]
        case .sex: return ["M", "F", "X", "<"].map { c[$0]! }
        }
    }

    /// What the per-cell classifier must show before a reading is trusted.
    struct Thresholds: Sendable {
        /// A cell whose best allowed glyph correlates less is unreadable.
        var floor: Float = 0.55
        /// A line with `doubtfulCells` or more cells whose best glyph correlates under `doubt` is refused: a run of
        /// poor cells is a stretch cut at the wrong place, where even the best glyph can be the wrong one.
        var doubt: Float = 0.7
        var doubtfulCells = 3
        /// A runner-up less than this far behind the best (`OCRBClassifier.separation`) is a candidate too.
        var margin: Float = 0.2
    }

    /// The zone from the classifier's scores (`scores[line][cell][class]`), or nil. At each position only the
    /// classes of its kind compete; a runner-up closer than `margin` to the best stays a candidate. A position with
    /// several candidates is settled only by the check digits, and only where one exists: in a name, a code or
    /// the sex the zone is refused. Of all combinations of candidates exactly one may make every check digit hold;
    /// none or several and the zone is refused (a wrong answer is worse than none). `changes`: positions where the
    /// answer differs from the best-scoring glyph of all 37.
    ///
    /// `secondOpinion(line, index, best)`: asked only for a close runner-up where no check digit watches; true when
    /// another reading of that cell names the same best glyph.
    static func decide(
        _ scores: [[[Float]]], format: MRZFormat, thresholds t: Thresholds = .init(),
        secondOpinion: ((Int, Int, Character) -> Bool)? = nil
    ) -> (mrz: MRZ, changes: Int, confidence: Double)? {
        let kinds = layout(format)
        guard scores.count == kinds.count else { return nil }
        let classes = OCRBClassifier.classes
        var base: [[Character]] = []
        var open: [(line: Int, index: Int, options: [Character])] = []
        var changes = 0
        var total = 0.0
        var count = 0
        for (l, line) in scores.enumerated() {
            guard line.count == kinds[l].count else { return nil }
            let doubtful = line.filter { s in (s.max() ?? 0) < t.doubt }.count
            guard doubtful < t.doubtfulCells else { return nil }
            var out: [Character] = []
            for (i, s) in line.enumerated() {
                let ranked = allowed(kinds[l][i]).sorted { s[$0] > s[$1] }
                let best = s[ranked[0]]
                guard best >= t.floor else { return nil }
                let options = ranked.prefix(3).filter { OCRBClassifier.separation(s, ranked[0], $0) < t.margin }
                if options.count > 1 {
                    switch kinds[l][i] {
                    case .alpha, .sex:
                        guard let secondOpinion, secondOpinion(l, i, classes[ranked[0]]) else { return nil }
                    default: open.append((l, i, options.map { classes[$0] }))
                    }
                }
                let overall = s.indices.max { s[$0] < s[$1] }!
                if overall != ranked[0] { changes += 1 }
                total += Double(best)
                count += 1
                out.append(classes[ranked[0]])
            }
            base.append(out)
        }
        guard nameStructureHolds(base, format: format) else { return nil }
        func parse(_ ls: [[Character]]) -> MRZ? {
            guard let m = try? MRZ(ls.map { String($0) }.joined(separator: "\n")), m.format == format, m.isValid
            else { return nil }
            return m
        }
        let combinations = open.reduce(1) { $0 * $1.options.count }
        guard combinations <= 1024 else { return nil }
        var found: (MRZ, Int)?
        for k in 0..<combinations {
            var t = base
            var rest = k
            var moved = 0
            for p in open {
                let choice = rest % p.options.count
                rest /= p.options.count
                t[p.line][p.index] = p.options[choice]
                if choice != 0 { moved += 1 }
            }
            if let m = parse(t) {
                guard found == nil else { return nil }
                found = (m, moved)
            }
        }
        guard let (mrz, moved) = found else { return nil }
        return (mrz, changes + moved, total / Double(max(1, count)))
    }

    /// The name field (9303-3 §4.6): primary identifier, "<<", secondary identifier components separated by
    /// single fillers, then fillers to the end: nothing but fillers follows three fillers or a second "<<".
    static func nameStructureHolds(_ lines: [[Character]], format: MRZFormat) -> Bool {
        let (nameLine, nameStart) = format == .td1 ? (2, 0) : (0, 5)
        var run = 0
        var separators = 0
        for c in lines[nameLine].dropFirst(nameStart) {
            if c == "<" {
                run += 1
                if run == 2 { separators += 1 }
                continue
            }
            guard run < 3, separators <= 1 else { return false }
            run = 0
        }
        return true
    }
}
