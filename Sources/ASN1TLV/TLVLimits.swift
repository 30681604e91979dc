/// The limits every BER-TLV / DER parse of this package runs under (`TLVParser.Rules`' defaults), each
/// leaving room for the largest genuine structure known (docs/reliability.md, "Limits").
///
/// They bound what a hostile input can cost before any other check looks at it: the size of the input
/// is bounded by its kind's cap (`LDSLimits`, `TrustLimits`), and these bound the work done per byte.
public enum TLVLimits {
    /// Deepest nesting of constructed encodings. The deepest genuine structure is an X.509 certificate
    /// inside CMS SignedData inside an EF.SOD wrapper: about 12 levels (77 / ContentInfo / [0] /
    /// SignedData / certificates / Certificate / TBSCertificate / extensions / Extension / OCTET STRING
    /// / SEQUENCE / …); ICAO 9303-10 biometric templates nest 4 levels.
    public static let maxDepth = 32

    /// Largest declared length of one data object: 16 MiB, the cap of the largest file kind (a CSCA
    /// master list, `TrustLimits.maxMasterListBytes`). The German master list of ~580 CSCAs is 0.9 MB.
    public static let maxLength = 16 * 1024 * 1024

    /// Most nodes one `TLVParser` parse builds (a `TLVNode` tree costs an allocation per constructed
    /// node). Genuine trees are far smaller: an EF.SOD with its document signer certificate holds about
    /// 300 data objects, a certificate 100–250, a CSCA CRL with a hundred revocations about 600, a DG2
    /// a few dozen (its image is one primitive object). 65,536 leaves room for a CRL of over 10,000
    /// revoked certificates; master lists are read with `TLVCursor`, which builds no tree.
    public static let maxElements = 65_536
}
