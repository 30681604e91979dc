import ASN1TLV
import FaceImaging
import Foundation
import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
import MRTDReader
import MRTDSecureMessaging
import MRTDTrust
import PCSCTransport
import StepUp

/// The fuzz targets: one per parser or decoder that reads bytes an attacker controls (a chip, a bundle,
/// trust material, a step-up context, a readers file). Each feeds the input to the module's public API
/// and then reads what came back, so lazily computed parts run too. Thrown Swift errors are the
/// expected answer to bad input and are ignored; a trap, an AddressSanitizer report, a timeout or an
/// out-of-memory stops the fuzzer, which is what it is looking for.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case tlv
    case mrz
    case com
    case dg1
    case dg2
    case face19794 = "face-19794"
    case face39794 = "face-39794"
    case dg11
    case dg12
    case dg14
    case dg15
    case dg16
    case ldsOther = "lds-other"
    case securityInfos = "security-infos"
    case sod
    case x509
    case crl
    case masterList = "master-list"
    case smUnwrap = "sm-unwrap"
    case stepUpContext = "stepup-context"
    case readers
    case faceImage = "face-image"
    case cloneDetection = "clone-detection"
    case pem
    case chipAnswers = "chip-answers"
    case serviceRequest = "service-request"
    case options

    /// Runs one input. Never throws: every Swift error is the parser's ordinary answer.
    public func run(_ bytes: [UInt8]) {
        switch self {
        case .tlv: Self.tlv(bytes)
        case .mrz: Self.mrz(bytes)
        case .com: touch(try? COMFile(bytes: bytes))
        case .dg1: Self.dg1(bytes)
        case .dg2: Self.dg2(bytes)
        case .face19794: touch(try? ISO19794FaceRecord(bytes: bytes, file: .dg2))
        case .face39794: touch(try? ISO39794FaceImageDataBlock(bytes: bytes, file: .dg2))
        case .dg11: touch(try? DG11File(bytes: bytes))
        case .dg12: touch(try? DG12File(bytes: bytes))
        case .dg14: Self.securityInfos(try? SecurityInfos.parseDG14(bytes))
        case .dg15: Self.dg15(bytes)
        case .dg16: touch(try? DG16File(bytes: bytes))
        case .ldsOther: Self.ldsOther(bytes)
        case .securityInfos: Self.securityInfosAny(bytes)
        case .sod: Self.sod(bytes)
        case .x509: Self.x509(bytes)
        case .crl: Self.crl(bytes)
        case .masterList: Self.masterList(bytes)
        case .smUnwrap: SMUnwrapTarget.run(bytes)
        case .stepUpContext: Self.stepUp(bytes)
        case .readers: Self.readers(bytes)
        case .faceImage: Self.faceImage(bytes)
        case .cloneDetection: FileTargets.cloneDetection(bytes)
        case .pem: FileTargets.pem(bytes)
        case .chipAnswers: ChipAnswersTarget.run(bytes)
        case .serviceRequest: ServiceRequestTarget.run(bytes)
        case .options: OptionsTarget.run(bytes)
        }
    }

    // MARK: - Targets

    /// ASN1TLV: the tree parser under BER and DER rules, the prefix parser and the in-place cursor,
    /// walked to the leaves.
    static func tlv(_ bytes: [UInt8]) {
        if let nodes = try? TLVParser.parseAll(bytes, rules: .ber) { for n in nodes { walk(n) } }
        if let nodes = try? TLVParser.parseAll(bytes, rules: .der) { for n in nodes { walk(n) } }
        _ = try? TLVParser.parsePrefix(bytes[...])
        _ = try? TLVParser.peekHeader(bytes[...])
        var cursor = TLVCursor(bytes)
        walkCursor(&cursor, depth: 0)
    }

    private static func walk(_ n: TLVNode) {
        touch(n.tagClass)
        if !n.isConstructed {
            _ = try? n.integerValue()
            _ = try? n.objectIdentifierValue()
        }
        for c in n.children { walk(c) }
    }

    private static func walkCursor(_ cursor: inout TLVCursor, depth: Int) {
        guard depth < 64 else { return }
        while true {
            guard let h = try? cursor.next() else { return }
            if h.isConstructed, var inner = try? cursor.children(of: h) {
                walkCursor(&inner, depth: depth + 1)
            } else {
                touch(cursor.value(h).count)
                _ = try? cursor.tree(h)
            }
        }
    }

    /// The MRZ text parser and the access-key reader, on the input as UTF-8 text.
    static func mrz(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let m = try? MRZ(text) {
            touch(m.description)
            touch(m.dateOfBirth)
            touch(m.dateOfExpiry)
            touch(m.optionalData)
        }
        if let k = try? MRZKey(mrz: text) { touch(k.mrzInformation) }
        let words = text.split(separator: "|", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
        if words.count == 3,
            let k = try? MRZKey(documentNumber: words[0], dateOfBirth: words[1], dateOfExpiry: words[2])
        {
            touch(k.mrzInformation)
        }
    }

    static func dg1(_ bytes: [UInt8]) {
        guard let f = try? DG1File(bytes: bytes) else { return }
        touch(f)
        touch(f.mrz.description)
    }

    static func dg2(_ bytes: [UInt8]) {
        guard let f = try? DG2File(bytes: bytes) else { return }
        for face in f.faces {
            touch(face.format)
            touch(face.width)
            touch(face.imageData.count)
        }
        touch(f)
    }

    /// FaceImaging with the limits a read uses (`ImageLimits.standard`): the header checks, then OpenJPEG or
    /// libjpeg-turbo decoding and the JPEG re-encoding of `DisplayImage.displayJPEG`, as one document's image
    /// (`DocumentImageBudget`) and as the face. What the decoder was set up to produce is checked against the
    /// limits: a decode beyond them is a failure even when the library copes.
    static func faceImage(_ bytes: [UInt8]) {
        let log = ImageDecodeLog()
        ImageDecodeLog.$current.withValue(log) {
            var budget = DocumentImageBudget()
            touch((try? budget.displayJPEG(from: bytes))?.count)
            if let raster = try? DisplayImage.decode(bytes) {
                touch(raster.pixels.count)
                precondition(raster.width * raster.height <= ImageLimits.standard.maxDecodedPixels)
            }
        }
        let limits = ImageLimits.standard
        for e in log.entries {
            precondition(e.width * e.height <= limits.maxDecodedPixels, "decoded beyond maxDecodedPixels")
            precondition(e.components <= limits.maxComponents, "decoded beyond maxComponents")
        }
    }

    static func dg15(_ bytes: [UInt8]) {
        guard let f = try? DG15File(bytes: bytes) else { return }
        touch(f.keySizeBits)
        // The key as the Active Authentication check would use it.
        _ = try? PublicKey(subjectPublicKeyInfo: f.subjectPublicKeyInfo)
    }

    /// DG3–DG7, DG13 and the other files `LDSFileContent` reads, chosen by the first byte.
    static func ldsOther(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let files: [LDSFile] = [.dg3, .dg4, .dg5, .dg6, .dg7, .dg13]
        let file = files[Int(first) % files.count]
        touch(try? LDSFileContent.parse(file, bytes: Array(bytes.dropFirst())))
    }

    /// EF.CardAccess (bare SecurityInfos) and EF.CardSecurity (SecurityInfos inside SignedData), with
    /// the look-ups the access-control code makes on the result.
    static func securityInfosAny(_ bytes: [UInt8]) {
        securityInfos(try? SecurityInfos.parseCardAccess(bytes))
        securityInfos(try? SecurityInfos.parseCardSecurity(bytes))
        // EF.CardSecurity as passive authentication reads it: a CMS SignedData with a signer.
        if let sd = try? CMSSignedData(contentInfo: bytes) { touch(try? sd.verifySigner()) }
    }

    static func securityInfos(_ s: SecurityInfos?) {
        guard let s else { return }
        for p in s.paceInfos { touch(s.domainParameters(for: p)) }
        for c in s.chipAuthenticationInfos { touch(s.publicKey(for: c)) }
        touch(s.terminalAuthenticationInfos)
        touch(s.activeAuthenticationInfo)
        touch(s.privilegedTerminalInfo)
        touch(s.unknownInfos)
        touch(s.chipAuthenticationDomainParameterInfos)
        touch(s.paceDomainParameterInfos)
    }

    /// EF.SOD through passive authentication: the LDS security object, the CMS SignedData, the
    /// embedded document signer and its signature, against an empty trust store at a fixed time.
    static func sod(_ bytes: [UInt8]) {
        let input = PassiveAuthenticationInput(
            sodBytes: bytes, dataGroups: [1: [0x61, 0x00]], issuingState: "UTO",
            documentCode: "P<")
        let report = PassiveAuthenticationPolicy.icao9303.evaluate(
            input, trustStore: TrustStore(),
            validationTime: fixedTime)
        touch(report)
        if let sod = try? SODFile(bytes: bytes) { touch(try? LDSSecurityObject(bytes: sod.eContent)) }
    }

    /// An X.509 certificate: parsed, its extensions decoded, its key imported, its signature checked
    /// against its own key (as for a self-signed CSCA).
    static func x509(_ bytes: [UInt8]) {
        guard let c = try? Certificate(der: bytes) else { return }
        touch(c.description)
        touch(c.decoded.malformed)
        touch(c.unhandledCriticalExtensions)
        touch(c.isLinkCertificate)
        touch(c.authorityKeyIdentifier)
        touch(c.isValid(at: fixedTime))
        if let key = try? c.publicKey() { touch(try? c.isSignature(validFor: key)) }
        var store = TrustStore()
        _ = try? store.addCertificate(der: bytes, source: "fuzz")
    }

    static func crl(_ bytes: [UInt8]) {
        guard let crl = try? CertificateRevocationList(der: bytes) else { return }
        touch(crl.description)
        touch(crl.authorityKeyIdentifier)
        var store = TrustStore()
        _ = try? store.addCRL(der: bytes, source: "fuzz")
    }

    /// A CSCA master list as the trust store loads one, with the signature check against its own signer.
    static func masterList(_ bytes: [UInt8]) {
        if let ml = try? CSCAMasterList(bytes: bytes) {
            touch(ml.unreadableEntries)
            let roots = ml.signedData.certificates
            if !roots.isEmpty { touch(try? ml.verify(signerRoots: roots)) }
        }
        var store = TrustStore()
        _ = try? store.addMasterList(bytes, source: "fuzz")
    }

    /// The step-up operation context in every shape the CLI accepts, then the checks run on it.
    static func stepUp(_ bytes: [UInt8]) {
        let data = Data(bytes)
        if let decoded = try? StepUpInput.parse(data) {
            try? decoded.operation.validate()
            try? decoded.operation.requireReadyForProofing()
            _ = try? decoded.operation.endpointURL()
            touch(decoded.operation.redactedJSON())
        }
        _ = SignicatErrorObject.parse(data)
    }

    /// A readers.json file, then a match of every profile against a reader name taken from the input.
    static func readers(_ bytes: [UInt8]) {
        let data = Data(bytes)
        guard let profiles = try? ReaderProfiles(json: data, path: "fuzz") else { return }
        let name = String(decoding: bytes.suffix(64), as: UTF8.self)
        touch(profiles.profile(forReader: name))
    }

    static let fixedTime = ASN1Time(year: 2026, month: 6, day: 1)
}

/// Keeps a value alive so the optimiser cannot drop the work that produced it.
@inline(never)
func touch<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// What each fuzz executable's libFuzzer entry points call.
public enum FuzzEntry {
    /// `LLVMFuzzerTestOneInput`: copies the input (libFuzzer's buffer is exactly `size` bytes, so an
    /// overread in a parser is reported by AddressSanitizer on the copy too) and runs the target.
    public static func testOneInput(_ target: FuzzTarget, _ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
        target.run(bytes)
        return 0
    }

    /// The executable's `main`: with `EMRTD_FUZZ_WRITE_SEEDS=DIR` set, writes every target's seed corpus
    /// under DIR (from `EMRTD_FUZZ_FIXTURES`, the shared fixtures folder, and `EMRTD_FUZZ_CHECKOUT`, the checkout
    /// whose documented command lines seed `options`, when set) and exits — `Fuzz/run`
    /// makes the corpora at run time this way; otherwise hands over to libFuzzer's driver.
    public static func main(
        _ target: FuzzTarget, _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
        _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32 {
        let env = ProcessInfo.processInfo.environment
        if let out = env["EMRTD_FUZZ_WRITE_SEEDS"], !out.isEmpty {
            let fixtures = env["EMRTD_FUZZ_FIXTURES"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            let checkout = env["EMRTD_FUZZ_CHECKOUT"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            do {
                let counts = try SeedCorpus.write(to: URL(fileURLWithPath: out), fixtures: fixtures, checkout: checkout)
                for (t, n) in counts { print("seeds \(t.rawValue): \(n)") }
                return 0
            } catch {
                FileHandle.standardError.write(Data("seed generation failed: \(error)\n".utf8))
                return 1
            }
        }
        var count = argc
        var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
        return LLVMFuzzerRunDriver(&count, &arguments, testOneInput)
    }
}

/// libFuzzer's entry for a program with its own `main` (compiler-rt FuzzerInterface.h).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32
