import ASN1TLV
import DocumentGenerator
import ISO7816
import MRTDAccessControl
import MRTDDocument
import MRTDReader
import MRTDTrust
import VirtualChip

/// A generated virtual document, its chip and a trust store holding its test CSCA (and CRL).
struct VirtualDocument {
    let generated: GeneratedDocument
    let chip: VirtualChip
    let transport: LocalCardTransport
    let store: TrustStore

    init(
        _ name: String, options: GeneratorOptions = GeneratorOptions(), capabilities: TransportCapabilities? = nil,
        link: ((inout LinkBehaviour) -> Void)? = nil
    ) throws {
        var g = try SpecimenGenerator.generate(named: name, options: options)
        link?(&g.profile.link)
        try self.init(generated: g, capabilities: capabilities)
    }

    /// A fresh chip and transport for an already generated document (no regeneration).
    /// `faults`: field behaviour of the chip (`ChipFaults`); `responseTimeout`: the reader's per-command limit.
    init(
        generated g: GeneratedDocument, capabilities: TransportCapabilities? = nil, faults: ChipFaults = .none,
        responseTimeout: Double? = nil
    ) throws {
        generated = g
        chip = VirtualChip(profile: g.profile, options: VirtualChip.Options(faults: faults))
        transport = LocalCardTransport(
            emulator: chip, name: "virtual chip",
            capabilities: capabilities ?? (g.profile.link.extendedLength ? .extended : .shortOnly),
            responseTimeout: responseTimeout)
        var s = TrustStore()
        _ = try s.addCertificate(der: g.cscaCertificate, source: "test CSCA")
        if !g.crl.isEmpty { _ = try s.addCRL(der: g.crl, source: "test CRL") }
        store = s
    }

    func fresh() throws -> VirtualDocument {
        try VirtualDocument(generated: generated, capabilities: transport.capabilities)
    }

    var mrzKey: AccessKey { .mrz(try! MRZKey(mrz: generated.profile.mrz)) }
    var canKey: AccessKey { .can(generated.profile.can) }

    func read(_ key: AccessKey? = nil, configure: ((inout ReadOptions) -> Void)? = nil) async throws(ReadError)
        -> ReadResult
    {
        var o = ReadOptions(accessKey: key ?? mrzKey)
        configure?(&o)
        return try await DocumentReader(transport: transport, options: o).read()
    }

    func verify(_ r: ReadResult) -> VerificationOutcome {
        DocumentVerifier.verify(r, trustStore: store, validationTime: ASN1Time(year: 2026, month: 11, day: 29))
    }
}
