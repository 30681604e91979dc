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
        return s
    }
}
