import MRTDDocument

/// Turns the characters OCR read into an MRZ whose every check digit holds (ICAO 9303-3 §4.9), or refuses.
///
/// Each position of a format has a character class (9303-4 §4.2.2, -5 §4.2.2, -6 §4.2.2): numeric fields (dates,
/// check digits) take digits only, so a letter OCR confuses with a digit (O/0, I/1, Z/2, S/5, G/6, B/8) is read as
/// that digit; alphabetic fields (codes, states, names) take letters and fillers, so such a digit is read as its
/// letter. Alphanumeric fields (document number, optional data) could hold either: there a confusion is resolved
/// only by the check digits, only in a field two check digits watch, and only when exactly one choice makes every
/// check digit hold.
/// A character that fits none of these rules makes the line unreadable.
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

    static let letterAsDigit: [Character: Character] = [
        "O": "0", "Q": "0", "D": "0", "I": "1", "L": "1", "Z": "2", "S": "5", "G": "6", "B": "8",
    ]
    static let digitAsLetter: [Character: Character] = ["0": "O", "1": "I", "2": "Z", "5": "S", "6": "G", "8": "B"]
    /// What an alphanumeric position might have been instead. G/6 and K/< are left out: their values differ by 10
    /// and 20 (9303-3 §4.9), so no check digit can tell them apart, and a "correction" would be a guess.
    static let alternatives: [Character: [Character]] = [
        "0": ["O", "D", "Q"], "O": ["0", "D", "Q"], "D": ["0", "O"], "Q": ["0", "O"], "1": ["I"], "I": ["1"],
        "2": ["Z"], "Z": ["2"], "5": ["S"], "S": ["5"], "8": ["B"], "B": ["8"],
    ]

    /// The corrected MRZ and the number of characters changed, or nil.
    static func correct(_ lines: [[Character]], format: MRZFormat) -> (mrz: MRZ, changes: Int)? {
        let kinds = layout(format)
        guard lines.count == kinds.count else { return nil }
        var fixed = lines
        var changes = 0
        var open: [(line: Int, index: Int)] = []
        for (l, line) in lines.enumerated() {
            guard line.count == kinds[l].count else { return nil }
            for (i, c) in line.enumerated() {
                var out = c
                switch kinds[l][i] {
                case .numeric, .check, .checkOrFiller:
                    if c.isASCII, c.isNumber { break }
                    if c == "<", kinds[l][i] == .checkOrFiller { break }
                    guard let d = letterAsDigit[c] else { return nil }
                    out = d
                case .alpha:
                    if c == "<" || (c.isASCII && c.isUppercase) { break }
                    guard let a = digitAsLetter[c] else { return nil }
                    out = a
                case .sex:
                    guard c == "M" || c == "F" || c == "<" || c == "X" else { return nil }
                case .alnum:
                    if alternatives[c] != nil { open.append((l, i)) }
                }
                if out != c {
                    fixed[l][i] = out
                    changes += 1
                }
            }
        }
        // The name field (9303-3 §4.6): primary identifier, "<<", secondary identifier components separated by
        // single fillers, then fillers to the end. Nothing can follow three fillers, so a K there is a misread filler
        // and any other character makes the zone unreadable; so does a second "<<" separator.
        let (nameLine, nameStart) = format == .td1 ? (2, 0) : (0, 5)
        var run = 0
        var separators = 0
        for i in nameStart..<fixed[nameLine].count {
            let c = fixed[nameLine][i]
            if c == "<" {
                run += 1
                if run == 2 { separators += 1 }
                continue
            }
            if run >= 3 {
                guard c == "K" else { return nil }
                fixed[nameLine][i] = "<"
                changes += 1
                continue
            }
            guard separators <= 1 else { return nil }
            run = 0
        }
        func parse(_ ls: [[Character]]) -> MRZ? {
            guard let m = try? MRZ(ls.map { String($0) }.joined(separator: "\n")), m.format == format, m.isValid
            else { return nil }
            return m
        }
        if let m = parse(fixed) { return (m, changes) }
        // One change, only where two check digits watch (the field's own and the composite): with one check digit a
        // tenth of all wrong variants would pass. Accept only a single candidate.
        let watched = doublyChecked(format)
        var found: [MRZ] = []
        for p in open where watched.contains(where: { $0.line == p.line && $0.range.contains(p.index) }) {
            for c in alternatives[fixed[p.line][p.index]] ?? [] {
                var t = fixed
                t[p.line][p.index] = c
                if let m = parse(t) { found.append(m) }
                if found.count > 1 { return nil }
            }
        }
        return found.count == 1 ? (found[0], changes + 1) : nil
    }

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
        /// A runner-up less than this far behind the best (`OCRBClassifier.separation`) is a candidate too.
        var margin: Float = 0.3
    }

    /// The zone from the classifier's scores (`scores[line][cell][class]`), or nil. At each position only the
    /// classes of its kind compete; a runner-up closer than `margin` to the best stays a candidate. A position with
    /// several candidates is settled only by the check digits, and only where one exists: in a name, a code or
    /// the sex the zone is refused. Of all combinations of candidates exactly one may make every check digit hold;
    /// none or several and the zone is refused (a wrong answer is worse than none). `changes`: positions where the
    /// answer differs from the best-scoring glyph of all 37.
    static func decide(_ scores: [[[Float]]], format: MRZFormat, thresholds t: Thresholds = .init())
        -> (mrz: MRZ, changes: Int, confidence: Double)?
    {
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
            var out: [Character] = []
            for (i, s) in line.enumerated() {
                let ranked = allowed(kinds[l][i]).sorted { s[$0] > s[$1] }
                let best = s[ranked[0]]
                guard best >= t.floor else { return nil }
                let options = ranked.prefix(3).filter { OCRBClassifier.separation(s, ranked[0], $0) < t.margin }
                if options.count > 1 {
                    switch kinds[l][i] {
                    case .alpha, .sex: return nil
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

    /// The alphanumeric fields covered by their own check digit and the composite one: the document number (its
    /// 9 printed characters) and, in TD3, the personal number.
    static func doublyChecked(_ format: MRZFormat) -> [(line: Int, range: Range<Int>)] {
        switch format {
        case .td1: return [(0, 5..<14)]
        case .td2, .mrvB: return [(1, 0..<9)]
        case .td3, .mrvA: return [(1, 0..<9), (1, 28..<42)]
        }
    }

    /// Whether two readings of a zone agree wherever a misread could pass the check digits: every position but the
    /// numeric ones (a single wrong digit in a date or check digit always breaks its check, weights 7, 3, 1 being
    /// prime to 10), after the class rules above.
    static func agree(_ a: [[Character]], _ b: [[Character]], format: MRZFormat) -> Bool {
        let kinds = layout(format)
        guard a.count == kinds.count, b.count == kinds.count else { return false }
        for l in kinds.indices {
            guard a[l].count == kinds[l].count, b[l].count == kinds[l].count else { return false }
            for i in kinds[l].indices {
                switch kinds[l][i] {
                case .numeric, .check, .checkOrFiller: continue
                case .alpha:
                    if (digitAsLetter[a[l][i]] ?? a[l][i]) != (digitAsLetter[b[l][i]] ?? b[l][i]) { return false }
                case .alnum, .sex:
                    if a[l][i] != b[l][i] { return false }
                }
            }
        }
        return true
    }
}
