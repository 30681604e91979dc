// The umbrella module: `import EMRTDKit` gives a library user the whole public API (the SwiftPM habit), and the
// two reads a user starts with, one call each.
@_exported public import ASN1TLV
@_exported public import CanonicalJSON
@_exported public import DocumentGenerator
@_exported public import ISO7816
@_exported public import MRTDAccessControl
@_exported public import MRTDDocument
@_exported public import MRTDReader
@_exported public import MRTDTrust
@_exported public import PCSCTransport
@_exported public import VPCDBridge
@_exported public import VirtualChip

/// The reads a library user starts with. Both go through `DocumentReader.readAndVerify`, the read use case that
/// `emrtd read` and `emrtd serve` call too.
public enum EMRTD {
    /// Waits up to `timeout` seconds for a document on a PC/SC reader, then reads and verifies it.
    ///
    /// - Parameters:
    ///   - reader: a reader's name or part of it; nil takes the only reader (or the one a document is laid on).
    ///   - access: the MRZ key or the CAN.
    ///   - trust: the CSCAs passive authentication anchors to (`TrustStore(loading:)`, `addCertificate`).
    ///   - timeout: seconds to wait for the document.
    ///   - options: the rest of what the read does; its `accessKey` is replaced by `access`.
    /// - Returns: the read, its verification and its report.
    /// - Throws: `TransportError` when no document came in time or the reader is gone; `ReadError` when the read
    ///   failed (`ReadError.failure` says why and what to do).
    public static func readAndVerify(
        reader: String? = nil, access: AccessKey, trust: TrustStore, timeout: Double = 30,
        options: ReadOptions? = nil
    ) async throws -> VerifiedRead {
        var readOptions = options ?? ReadOptions(accessKey: access)
        readOptions.accessKey = access
        let transport = try await PCSCCardTransport.connectWhenPresented(readerQuery: reader, timeout: timeout)
        let read: VerifiedRead
        do {
            read = try await DocumentReader(transport: transport, options: readOptions).readAndVerify(trustStore: trust)
        } catch {
            try? await transport.disconnect(resetCard: true)
            throw error
        }
        try? await transport.disconnect(resetCard: true)
        return read
    }

    /// Generates a specimen document (a built-in profile, `SpecimenGenerator.profileNames`) with a fresh test PKI,
    /// lays it on the in-process virtual chip, reads it as a reader would and verifies it against the generated CSCA.
    /// No reader needed: this is what `emrtd demo` does.
    public static func readAndVerifyVirtual(
        profile: String = SpecimenGenerator.defaultProfileName
    ) async throws -> VerifiedRead {
        let document = try SpecimenGenerator.generate(named: profile)
        let transport = LocalCardTransport(emulator: VirtualChip(profile: document.profile), name: "virtual chip")
        var trust = TrustStore()
        _ = try trust.addCertificate(der: document.cscaCertificate, source: "generated test CSCA")
        let key = AccessKey.mrz(try MRZKey(mrz: document.profile.mrz))
        return try await DocumentReader(transport: transport, options: ReadOptions(accessKey: key))
            .readAndVerify(trustStore: trust)
    }
}
