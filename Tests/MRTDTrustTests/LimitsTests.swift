import ASN1TLV
import DocumentGenerator
import Foundation
import MRTDCrypto
import MRTDTestSupport
import Testing

@testable import MRTDTrust

/// `TrustLimits`: trust material is read only from regular files, never beyond its cap, PEM files are
/// counted before they are decoded, and a master list's signature is checked before its certificates are
/// parsed (a sparse file aborted the loader, a FIFO blocked it forever, 100 MB of zeros cost
/// 33 s, 5,000 / 20,000 self-signed CSCAs in one PEM 13 s / over 2 minutes, an unsigned 14 MB master list
/// up to 53 s and 1.9 GB). Hostile inputs are generated here; nothing big is committed.
@Suite struct TrustLimitsTests {
    static func scratch() throws -> URL { TemporaryFolder.make("trust-limits") }

    /// A file that reports `size` bytes without taking any space (all zeros when read).
    static func sparseFile(_ url: URL, size: Int) throws {
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let fd = open(url.path, O_WRONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(ftruncate(fd, off_t(size)) == 0)
    }

    static func expectRefused(
        _ refusals: [TrustStore.Refusal], code: TrustError.Code, mentioning: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(refusals.count == 1, "\(refusals)", sourceLocation: sourceLocation)
        guard let r = refusals.first else { return }
        #expect(r.error.code == code, "\(r)", sourceLocation: sourceLocation)
        #expect(r.error.reason.contains(mentioning), "\(r)", sourceLocation: sourceLocation)
    }

    @Test func sparseFileIsRefusedFromItsSizeWithoutAllocatingIt() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let big = dir.appendingPathComponent("huge.cer")
        try Self.sparseFile(big, size: 64 << 30)  // 64 GiB reported, nothing on disk
        var store = TrustStore()
        let refused = try store.load(path: big.path)
        Self.expectRefused(refused, code: .limitExceeded, mentioning: "TrustLimits.maxFileBytes")
        #expect(store.isEmpty)
        // also as a master-list signer root
        do {
            try store.pinMasterListSignerRoot(path: big.path)
            Issue.record("a 64 GiB root was pinned")
        } catch {
            #expect(error.code == .limitExceeded)
        }
    }

    @Test func hundredMegabytesOfZerosAreRefusedBeforeBeingRead() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let zeros = dir.appendingPathComponent("zeros.ml")
        try Self.sparseFile(zeros, size: 100_000_000)
        var store = TrustStore()
        Self.expectRefused(
            try store.load(path: zeros.path), code: .limitExceeded, mentioning: "\(TrustLimits.maxFileBytes) bytes")
        // within the cap, zeros are read and refused as no trust material at all
        let small = dir.appendingPathComponent("zeros-small.ml")
        try Self.sparseFile(small, size: 1 << 20)
        Self.expectRefused(try store.load(path: small.path), code: .unreadable, mentioning: "not a certificate")
    }

    /// On today's main this blocks in open(2) forever; the time limit turns that into a failure.
    @Test(.sharedFixtures, .timeLimit(.minutes(5))) func fifoIsRefusedWithoutBlocking() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("trust.pem")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        var store = TrustStore()
        // on a FIFO without a writer, open(2) for reading blocks: the loader must not open it at all
        Self.expectRefused(try store.load(path: fifo.path), code: .unreadable, mentioning: "is a FIFO")
        do {
            try store.pinMasterListSignerRoot(path: fifo.path)
            Issue.record("a FIFO was read as a master-list signer root")
        } catch {
            #expect(error.reason.contains("is a FIFO"))
        }
        // a FIFO inside a folder is skipped (only regular files are listed), not waited on
        try FileManager.default.copyItem(
            atPath: Fixtures.path(Fixtures.deRoot), toPath: dir.appendingPathComponent("root.cer").path)
        var folderStore = TrustStore()
        let refused = try folderStore.load(path: dir.path)
        #expect(refused.isEmpty && folderStore.certificates.count == 1)
    }

    @Test(arguments: ["/dev/zero", "/dev/null", "/dev/urandom"])
    func devicesAreRefused(_ path: String) throws {
        var store = TrustStore()
        Self.expectRefused(try store.load(path: path), code: .unreadable, mentioning: "character device")
        #expect(throws: TrustError.self) { try store.pinMasterListSignerRoot(path: path) }
    }

    static func pem(_ der: [UInt8], copies: Int) -> String {
        let b64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        let block = "-----BEGIN CERTIFICATE-----\n\(b64)\n-----END CERTIFICATE-----\n"
        return String(repeating: block, count: copies)
    }

    @Test(.sharedFixtures) func pemWithMoreBlocksThanTheCapIsRefusedBeforeDecoding() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csca = try Fixtures.bytes(Fixtures.deRoot)  // a self-signed CSCA
        // 5,000 self-signed CSCAs in one PEM (the same one: the cap counts blocks before decoding any)
        let five = dir.appendingPathComponent("5000.pem")
        try Self.pem(csca, copies: 5000).write(to: five, atomically: false, encoding: .utf8)
        var store = TrustStore()
        Self.expectRefused(
            try store.load(path: five.path), code: .limitExceeded, mentioning: "TrustLimits.maxPEMBlocks")
        #expect(store.isEmpty && store.masterListSignerRoots.isEmpty)
        // 20,000: above the file cap, refused before it is read
        let twenty = dir.appendingPathComponent("20000.pem")
        try Self.pem(csca, copies: 20_000).write(to: twenty, atomically: false, encoding: .utf8)
        Self.expectRefused(
            try store.load(path: twenty.path), code: .limitExceeded, mentioning: "TrustLimits.maxFileBytes")
        // a PEM within the caps loads (and its duplicates merge)
        let few = dir.appendingPathComponent("3.pem")
        try Self.pem(csca, copies: 3).write(to: few, atomically: false, encoding: .utf8)
        #expect(try store.load(path: few.path).isEmpty)
        #expect(store.certificates.count == 1 && store.duplicateCount == 2)
    }

    @Test func oneLoadReadsAtMostItsBudget() throws {
        // five files of 15 MB (zeros: each alone within the file cap) in one folder: 64 MiB in all is read at most
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        for i in 0..<5 { try Self.sparseFile(dir.appendingPathComponent("\(i).ml"), size: 15_000_000) }
        var store = TrustStore()
        let refused = try store.load(path: dir.path)
        #expect(refused.count == 5)
        #expect(
            refused.filter { $0.error.code == .limitExceeded && $0.error.reason.contains("TrustLimits.maxLoadBytes") }
                .count == 1,
            "\(refused)")
    }

    /// The PEM split (RFC 7468 text): blocks between BEGIN and END lines, lines ending in LF, CRLF or CR, spaces and
    /// tabs around a line ignored, header lines (with a colon) skipped, text outside blocks ignored, and a body that
    /// is not base64 dropped; text without a BEGIN line, or not UTF-8, is one block as it is.
    @Test func splitsPEMIntoItsBlocks() throws {
        let a: [UInt8] = Array(0..<200).map { UInt8($0) }
        let b: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x07]
        let a64 = Data(a).base64EncodedString(options: [.lineLength64Characters, .endLineWithCarriageReturn])
        let text =
            "issuer note\r\n-----BEGIN CERTIFICATE-----\r\nProc-Type: 4,ENCRYPTED\r\n" + a64
            + "\r\n-----END CERTIFICATE-----\n\n  -----BEGIN X509 CRL-----  \n\t" + Data(b).base64EncodedString()
            + " \n-----END X509 CRL-----\n-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n"
        #expect(try TrustMaterialFiles.derBlocks(Array(text.utf8)) == [a, b])
        let plain = Array("no PEM here\n".utf8)
        #expect(try TrustMaterialFiles.derBlocks(plain) == [plain])
        let notText =
            Array("-----BEGIN CERTIFICATE-----\n".utf8) + [0xFF, 0xFE] + Array("\n-----END CERTIFICATE-----\n".utf8)
        #expect(try TrustMaterialFiles.derBlocks(notText) == [notText])
        #expect(try TrustMaterialFiles.derBlocks([]) == [])
    }

    /// Large PEM text of very short lines is refused before it is split (the split's cost is per line); the same
    /// text wrapped at 64 characters is read, and a small file is read whatever its lines.
    @Test func largePEMOfShortLinesIsRefusedBeforeTheSplit() throws {
        let der: [UInt8] = Array(repeating: 0x41, count: 60_000)
        let b64 = Data(der).base64EncodedString()
        func pem(lineLength n: Int) -> [UInt8] {
            var lines: [Substring] = []
            var rest = Substring(b64)
            while !rest.isEmpty {
                lines.append(rest.prefix(n))
                rest = rest.dropFirst(n)
            }
            return Array(
                ("-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n").utf8
            )
        }
        #expect(try TrustMaterialFiles.derBlocks(pem(lineLength: 64)) == [der])
        #expect(throws: TrustError.self) { try TrustMaterialFiles.derBlocks(pem(lineLength: 8)) }
        do {
            _ = try TrustMaterialFiles.derBlocks(pem(lineLength: 2))
            Issue.record("100 KB of 2-character lines was split")
        } catch {
            #expect(error.code == .limitExceeded && "\(error)".contains("TrustLimits.minPEMBytesPerLine"))
        }
        let small = Array("-----BEGIN CERTIFICATE-----\nMA\nMC\nAQ\nc=\n-----END CERTIFICATE-----\n".utf8)
        #expect(try TrustMaterialFiles.derBlocks(small) == [[0x30, 0x03, 0x02, 0x01, 0x07]])
        #expect(TrustMaterialFiles.countLineBreaks(Array("a\r\nb\nc\u{0B}\u{0C}".utf8)) == 5)
    }

    /// A PEM block whose body decodes to more than `TrustLimits.maxPEMBlockBytes` is refused while the text is split
    /// (nothing of it decoded); one just under the cap is decoded as before.
    @Test func aPEMBodyOverTheBlockCapIsRefusedBeforeItIsDecoded() throws {
        func pem(_ count: Int) -> [UInt8] {
            let body = Data(repeating: 0x30, count: count).base64EncodedString(options: [
                .lineLength64Characters, .endLineWithLineFeed,
            ])
            return Array(("-----BEGIN X509 CRL-----\n" + body + "\n-----END X509 CRL-----\n").utf8)
        }
        #expect(
            try TrustMaterialFiles.derBlocks(pem(TrustLimits.maxPEMBlockBytes - 3)).first?.count == TrustLimits
                .maxPEMBlockBytes - 3)
        do {
            _ = try TrustMaterialFiles.derBlocks(pem(TrustLimits.maxPEMBlockBytes + 4))
            Issue.record("a body over the block cap was decoded")
        } catch {
            #expect(error.code == .limitExceeded && "\(error)".contains("TrustLimits.maxPEMBlockBytes"))
        }
    }

    /// A certificate repeated in a load is still recorded as a duplicate with each of its sources now that the
    /// repeated bytes are not decoded again (what that saves is `emrtd bench`'s "4096 CSCAs" trust row).
    @Test func aRepeatedCertificateKeepsItsSources() throws {
        let der = try TestPKI.generate().csca.der
        var store = TrustStore()
        let first = try store.addCertificate(der: der, source: "a.pem#1")
        let again = try store.addCertificate(der: der, source: "a.pem#2")
        #expect(again == first)
        #expect(store.duplicateCount == 1 && store.entries.count == 1)
        #expect(store.entries.first?.sources == ["a.pem#1", "a.pem#2"])
    }

    @Test func countsPEMBlocks() {
        #expect(
            TrustMaterialFiles.countPEMBlocks(Array("-----BEGIN X-----\nAA\n-----END X-----\n-----BEGIN Y".utf8)) == 2)
        #expect(TrustMaterialFiles.countPEMBlocks(Array("----BEGIN -----BEGIN".utf8)) == 0)
        #expect(TrustMaterialFiles.countPEMBlocks([]) == 0)
    }

    @Test(.sharedFixtures) func pinningThousandsOfRootsStaysLinear() throws {
        // the same root pinned again is not added twice (an index, not a scan, answers it)
        var store = TrustStore()
        let root = try Certificate(der: try Fixtures.bytes(Fixtures.deRoot))
        for _ in 0..<1000 { store.pinMasterListSignerRoot(root) }
        #expect(store.masterListSignerRoots.count == 1)
    }

    /// ContentInfo { signedData, SignedData { 1, {}, { id-icao-cscaMasterList, [0] OCTET STRING content }, signerInfos } }.
    static func masterList(content: [UInt8], signerInfos: [UInt8] = []) -> [UInt8] {
        let signedDataOID: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
        let mlOID: [UInt8] = [0x06, 0x06, 0x67, 0x81, 0x08, 0x01, 0x01, 0x02]
        let eci = TLVWriter.encode(0x30, mlOID + TLVWriter.encode(0xA0, TLVWriter.encode(0x04, content)))
        let sd = TLVWriter.encode(
            0x30, [0x02, 0x01, 0x03] + TLVWriter.encode(0x31, []) + eci + TLVWriter.encode(0x31, signerInfos))
        return TLVWriter.encode(0x30, signedDataOID + TLVWriter.encode(0xA0, sd))
    }

    @Test(.sharedFixtures) func unsignedMasterListIsRefusedBeforeItsCertificatesAreParsed() throws {
        // 14 MB of certificates (copies of one CSCA) in a certList that ends in a broken entry, no SignerInfo:
        // the refusal is about the signature, so the certificate list was never read
        let csca = try Fixtures.bytes(Fixtures.deRoot)
        var certList: [UInt8] = []
        certList.reserveCapacity(14_100_000)
        while certList.count < 14_000_000 { certList += csca }
        certList += [0x30, 0x03, 0x02, 0x01]  // truncated
        let content = TLVWriter.encode(0x30, [0x02, 0x01, 0x00] + TLVWriter.encode(0x31, certList))
        let bytes = Self.masterList(content: content)
        #expect(bytes.count > 14_000_000 && bytes.count < TrustLimits.maxMasterListBytes)
        var store = TrustStore()
        store.pinMasterListSignerRoot(try Certificate(der: csca))
        do {
            try store.addMasterList(bytes, source: "unsigned.ml")
            Issue.record("an unsigned master list was added")
        } catch {
            #expect(error.error.reason.contains("no SignerInfo"), "\(error)")
        }
        #expect(store.certificates.isEmpty)
        // the same through CSCAMasterList.verified
        #expect(throws: TrustError.self) {
            try CSCAMasterList.verified(bytes: bytes, signerRoots: [try Certificate(der: csca)])
        }
    }

    @Test func masterListAboveItsCapIsRefusedUnparsed() throws {
        let bytes = Self.masterList(content: [UInt8](repeating: 0, count: TrustLimits.maxMasterListBytes))
        do {
            _ = try CSCAMasterList(bytes: bytes)
            Issue.record("a master list above the cap was read")
        } catch {
            #expect(error.code == .limitExceeded && error.reason.contains("TrustLimits.maxMasterListBytes"))
        }
    }

    @Test func certificateAndCRLAboveTheirCapsAreRefused() throws {
        var store = TrustStore()
        let big = TLVWriter.encode(0x30, [UInt8](repeating: 0, count: TrustLimits.maxCertificateBytes))
        do {
            try store.addCertificate(der: big, source: "big.cer")
            Issue.record("a certificate above the cap was read")
        } catch {
            #expect(
                error.error.code == .limitExceeded && error.error.reason.contains("TrustLimits.maxCertificateBytes"))
        }
        let bigCRL = TLVWriter.encode(0x30, [UInt8](repeating: 0, count: TrustLimits.maxCRLBytes))
        do {
            try store.addCRL(der: bigCRL, source: "big.crl")
            Issue.record("a CRL above the cap was read")
        } catch {
            #expect(error.error.code == .limitExceeded && error.error.reason.contains("TrustLimits.maxCRLBytes"))
        }
    }

    @Test(.sharedFixtures) func realMasterListsAndRootsStayWithinTheCaps() throws {
        for (ml, root) in [(Fixtures.deMasterList, Fixtures.deRoot), (Fixtures.nlMasterList, Fixtures.nlRoot)] {
            var store = TrustStore()
            try store.pinMasterListSignerRoot(path: Fixtures.path(root))
            #expect(try store.load(path: Fixtures.path(ml)).isEmpty)
            #expect(store.cscas.count > 400)
        }
    }
}
