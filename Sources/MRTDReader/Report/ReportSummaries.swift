extension ReadReport.AccessControl {
    /// One line a person reads: "PACE with MRZ, GM-ECDH (parameter id 13), AES-128", "BAC with MRZ, 3DES".
    /// Shared by the text output and the HTML report.
    public var summary: String {
        var s = "\(self.protocol) with \(password)"
        if let m = mapping { s += ", \(m)" }
        if let k = keyAgreement { s += "-\(k)" }
        if let p = parameterId { s += " (parameter id \(p))" }
        s += ", \(cipher)"
        if fellBackToBAC { s += " — fell back to BAC" }
        if downgradeAccepted == true { s += " (downgrade accepted by the caller)" }
        return s
    }
}

extension ReadReport.Check {
    /// The status as a person reads it, with a symbol so that it never rests on colour alone:
    /// "✓ passed", "✗ FAILED", "– not present", "– not checked".
    public var statusText: String {
        switch status {
        case "passed": return "✓ passed"
        case "failed": return "✗ FAILED"
        case "notPresent": return "– not present"
        default: return "– not checked"
        }
    }
}
