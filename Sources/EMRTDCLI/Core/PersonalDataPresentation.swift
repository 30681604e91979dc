import MRTDReader

/// The text output of the personal data groups (DG5, DG7, DG11, DG12, DG16): the same sections and labels as
/// the HTML report (`PersonalDataSection`).
enum PersonalDataPresentation {
    static func lines(_ d: ReadReport.Document) -> [String] {
        var out: [String] = []
        for s in PersonalDataSection.sections(of: d) {
            out.append("")
            out.append(s.title)
            let width = min(30, s.rows.map(\.label.count).max() ?? 0)
            for r in s.rows {
                out.append("  " + r.label + String(repeating: " ", count: max(1, width + 2 - r.label.count)) + r.value)
            }
        }
        if !out.isEmpty { out.append("") }
        return out
    }
}
