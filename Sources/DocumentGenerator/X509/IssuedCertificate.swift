public import MRTDTrust

extension Certificate {
    /// Reads back a certificate the generator issued, as a verifier reads it (MRTDTrust's model: issuer and
    /// serial for a CMS SignerIdentifier, the subject key identifier for AKI/SKI, the validity).
    public init(issued der: [UInt8]) throws(GeneratorError) {
        do {
            try self.init(der: der)
        } catch {
            throw GeneratorError(.invalidInput, step: "certificate.parse", error.description)
        }
    }
}
