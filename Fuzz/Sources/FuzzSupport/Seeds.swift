import ASN1TLV
import DocumentGenerator
import FaceImaging
import Foundation
import MRTDDocument
import MRTDTrust
import PCSCTransport

struct SeedError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Seed corpora, made at run time (nothing here is committed): the public fixture files of
/// the `shared/fixtures` folder beside the checkout (specimen passports, LDS samples, a CRL, master lists,
/// published by BSI, RDW and ICAO — not ours to redistribute, so they are read, not copied into the repository) and documents generated
/// by DocumentGenerator's specimen generator (Utopia specimen data, keys made on the spot).
public enum SeedCorpus {
    /// Writes every target's seeds to `directory/<target>/`; returns how many files each got.
    public static func write(to directory: URL, fixtures: URL?, checkout: URL?) throws -> [(FuzzTarget, Int)] {
        let all = try make(fixtures: fixtures, checkout: checkout)
        var counts: [(FuzzTarget, Int)] = []
        for target in FuzzTarget.allCases {
            let dir = directory.appendingPathComponent(target.rawValue)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let seeds = all[target] ?? []
            guard !seeds.isEmpty else { throw SeedError("no seed for \(target.rawValue)") }
            for (name, bytes) in seeds {
                let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" })
                try Data(bytes).write(to: dir.appendingPathComponent("seed-" + safe))
            }
            counts.append((target, seeds.count))
        }
        return counts
    }

    static func make(fixtures: URL?, checkout: URL?) throws -> [FuzzTarget: [(String, [UInt8])]] {
        var s: [FuzzTarget: [(String, [UInt8])]] = [:]
        func add(_ t: FuzzTarget, _ name: String, _ bytes: [UInt8]?) {
            guard let bytes, !bytes.isEmpty else { return }
            s[t, default: []].append((name, bytes))
        }

        // Generated documents: every built-in profile of the virtual chip.
        for name in SpecimenGenerator.profileNames {
            let doc = try SpecimenGenerator.generate(named: name)
            let f = doc.profile.files
            add(.com, name, f[.com])
            add(.dg1, name, f[.dg1])
            add(.dg11, name, f[.dg11])
            add(.dg12, name, f[.dg12])
            add(.dg14, name, f[.dg14])
            add(.dg15, name, f[.dg15])
            add(.sod, name, f[.sod])
            add(.securityInfos, name + "-cardaccess", f[.cardAccess])
            add(.securityInfos, name + "-cardsecurity", f[.cardSecurity])
            add(.x509, name + "-csca", doc.cscaCertificate)
            add(.x509, name + "-ds", doc.documentSignerCertificate)
            add(.x509, name + "-mlsigner", doc.masterListSignerCertificate)
            add(.crl, name, doc.crl)
            add(.masterList, name, doc.masterList)
            add(.mrz, name, Array(doc.profile.mrz.utf8))
            add(
                .mrz, name + "-key",
                Array("\(doc.profile.documentNumber)|\(doc.profile.dateOfBirth)|\(doc.profile.dateOfExpiry)".utf8))
            for file: LDSFile in [.com, .dg1, .dg14, .dg15] { add(.tlv, "\(name)-\(file.rawValue)", f[file]) }
            add(.pem, name + "-csca-der", doc.cscaCertificate)
            add(
                .pem, name + "-chain",
                pem("CERTIFICATE", doc.cscaCertificate) + pem("CERTIFICATE", doc.documentSignerCertificate))
            add(.pem, name + "-crl", pem("X509 CRL", doc.crl))
            if name == SpecimenGenerator.defaultProfileName {
                // One DG2 only (they are large and alike); its face record for the record target.
                add(.dg2, name, f[.dg2])
                add(.tlv, name + "-sod", f[.sod])
                add(.tlv, name + "-csca", doc.cscaCertificate)
                if let dg2 = f[.dg2] { addFaceRecords(dg2, name, add) }
                for (i, file) in [LDSFile.dg5, .dg7].enumerated() {
                    add(.ldsOther, "\(name)-\(file.rawValue)", f[file].map { [UInt8(3 + i)] + $0 })
                }
            }
        }
        add(.dg16, "two-persons", dg16Seed)
        for (name, bytes) in try faceImageSeeds() { add(.faceImage, name, bytes) }

        // Public fixture files.
        if let fixtures {
            func read(_ path: String) -> [UInt8]? {
                (try? Data(contentsOf: fixtures.appendingPathComponent(path))).map { [UInt8]($0) }
            }
            let specimens: [(String, [(LDSFile, String)])] = [
                (
                    "bsi2008",
                    [
                        (.com, "EF_COM.bin"), (.sod, "EF_SOD.bin"), (.dg1, "Datagroup1.bin"), (.dg2, "Datagroup2.bin"),
                        (.dg3, "Datagroup3.bin"), (.dg4, "Datagroup4.bin"), (.dg14, "Datagroup14.bin"),
                        (.dg15, "Datagroup15.bin"),
                    ]
                ),
                (
                    "nl-2006",
                    [
                        (.dg1, "ef0101.bin"), (.dg2, "ef0102.bin"), (.dg15, "ef010F.bin"), (.sod, "ef011D.bin"),
                        (.com, "ef011E.bin"),
                    ]
                ),
                (
                    "bsi-tr03105-5",
                    [
                        (.com, "EF_COM.bin"), (.sod, "EF_SOD.bin"), (.dg1, "Datagroup1.bin"),
                        (.dg14, "Datagroup14.bin"),
                        (.dg15, "Datagroup15.bin"),
                    ]
                ),
            ]
            for (dir, files) in specimens {
                let names =
                    (try? FileManager.default.contentsOfDirectory(
                        atPath: fixtures.appendingPathComponent("specimens/" + dir).path)) ?? []
                for (file, wanted) in files {
                    // File names differ in case between the mirrors: match case-insensitively.
                    guard let actual = names.first(where: { $0.lowercased() == wanted.lowercased() }),
                        let bytes = read("specimens/\(dir)/\(actual)")
                    else { continue }
                    let name = "\(dir)-\(file.rawValue)"
                    switch file {
                    case .com: add(.com, name, bytes)
                    case .sod:
                        add(.sod, name, bytes)
                        add(.tlv, name, bytes)
                    case .dg1:
                        add(.dg1, name, bytes)
                        add(.tlv, name, bytes)
                        if let d = try? DG1File(bytes: bytes) { add(.mrz, name, Array(d.mrz.raw.utf8)) }
                    case .dg2:
                        add(.dg2, name, bytes)
                        addFaceRecords(bytes, name, add)
                    case .dg3: add(.ldsOther, name, [0] + bytes)
                    case .dg4: add(.ldsOther, name, [1] + bytes)
                    case .dg14:
                        add(.dg14, name, bytes)
                        add(.tlv, name, bytes)
                    case .dg15: add(.dg15, name, bytes)
                    default: break
                    }
                }
            }
            add(.securityInfos, "EF_CardSecurity", read("lds-samples/EF_CardSecurity.bin"))
            if let dg2 = read("lds-samples/DG2-iso19794-5-all-fields.bin") {
                add(.dg2, "iso19794-all-fields", dg2)
                addFaceRecords(dg2, "iso19794-all-fields", add)
            }
            if let dg2 = read("lds-samples/DG2-iso39794-5-sample.der") {
                add(.dg2, "iso39794-sample", dg2)
                addFaceRecords(dg2, "iso39794-sample", add)
            }
            add(.crl, "COL", read("crl/COL.crl"))
            for root in ["masterlists/DE_ROOT_CA_CSCA07.cer", "masterlists/NL_ROOT_CA.cer"] {
                add(.x509, root, read(root))
            }
            // Real CSCA certificates from the master lists (RSA, RSA-PSS, ECDSA with named and explicit
            // curves), for the certificate target. The lists themselves are 0.3–1 MB: too large as seeds
            // for a fuzzer that mutates whole inputs; the master-list target uses generated lists.
            for ml in ["masterlists/DE_ML_2026-05-28-08-28-45.ml", "masterlists/NL_ML_2026-07-22.ml"] {
                guard let bytes = read(ml), let list = try? CSCAMasterList(bytes: bytes) else { continue }
                var seenAlgorithms = Set<String>()
                for (i, c) in list.certificates.enumerated() {
                    let key =
                        c.signatureAlgorithm.oid.dotted + "/"
                        + ((try? c.publicKey()).map { "\($0.kind)/\($0.subjectPublicKeyInfo.count)" } ?? "?")
                    if seenAlgorithms.insert(key).inserted || i % 97 == 0 { add(.x509, "\(ml)-\(i)", c.encoded) }
                }
                if let signer = list.signedData.certificates.first { add(.x509, ml + "-signer", signer.encoded) }
            }
        }

        for (name, json) in stepUpSeeds { add(.stepUpContext, name, Array(json.utf8)) }
        add(.readers, "builtin", Array(ReaderProfiles.builtInJSON.utf8))
        add(
            .readers, "small",
            Array(
                #"{"schema":"emrtd.readers/1","readers":[{"id":"a","vendor":"V","model":"M","match":["*Virtual PCD*"],"extendedLength":true,"maxCommandSize":261,"maxResponseSize":258,"quirks":[{"id":"q","description":"d","workaround":null}],"sources":[{"title":"t","url":"https://example.test"}],"status":"untested"}]}"#
                    .utf8))
        for (name, bytes) in try SMUnwrapTarget.seeds() { add(.smUnwrap, name, bytes) }
        for (name, bytes) in try ChipAnswersTarget.seeds() { add(.chipAnswers, name, bytes) }
        for (name, bytes) in ServiceRequestTarget.seeds { add(.serviceRequest, name, bytes) }
        for (name, json) in cloneDetectionSeeds { add(.cloneDetection, name, Array(json.utf8)) }
        for (name, bytes) in OptionsTarget.seeds(checkout: checkout) { add(.options, name, bytes) }
        return s
    }

    /// Face and document images, small so that the fuzzer runs many: genuine JPEG 2000 (JP2 and codestream, grey
    /// and colour) and JPEG (baseline and progressive), and each hostile kind of `HostileImages` at a small size.
    static func faceImageSeeds() throws -> [(String, [UInt8])] {
        let face = SyntheticFace.rgbPixels(width: 48, height: 60)
        guard let rgb = Raster(width: 48, height: 60, channels: 3, pixels: face),
            let grey = Raster(width: 48, height: 60, channels: 1, pixels: SyntheticFace.pixels(width: 48, height: 60))
        else { return [] }
        let jp2 = try JPEG2000Codec.encode(grey, container: .jp2, targetBytes: 600)
        return [
            ("jp2-rgb", try JPEG2000Codec.encode(rgb, container: .jp2, targetBytes: 1_200)),
            ("j2k-grey", try JPEG2000Codec.encode(grey, container: .codestream, targetBytes: 600)),
            ("j2k-rgb-lossless", try JPEG2000Codec.encode(rgb, container: .codestream)),
            ("jpeg-rgb", try JPEGCodec.encode(rgb, quality: 80)),
            ("jpeg-grey", try JPEGCodec.encode(grey, quality: 60)),
            ("palette-3", try HostileImages.paletted(jp2, columns: 3)),
            ("palette-255", try HostileImages.paletted(jp2, columns: 255)),
            ("huge-codestream", try HostileImages.hugeCodestream(side: 1024, targetBytes: 200)),
            ("code-blocks-4", try HostileImages.tinyCodeBlocks(width: 48, height: 60, targetBytes: 1_500)),
            ("scans-20", try HostileImages.manyScans(20, width: 48, height: 60)),
        ]
    }

    /// The biometric data blocks of a DG2, sorted to the record target of their encoding.
    static func addFaceRecords(_ dg2: [UInt8], _ name: String, _ add: (FuzzTarget, String, [UInt8]?) -> Void) {
        guard let group = (try? DG2File(bytes: dg2))?.group else { return }
        for (i, t) in group.templates.enumerated() {
            let isoFAC = t.dataBlock.count >= 4 && Array(t.dataBlock.prefix(4)) == [0x46, 0x41, 0x43, 0x00]
            add(isoFAC ? .face19794 : .face39794, "\(name)-\(i)", t.dataBlock)
        }
    }

    /// DG16 (ICAO 9303-10 §4.7.16) for two invented Utopia contacts.
    static var dg16Seed: [UInt8] {
        func tlv(_ tag: [UInt8], _ value: [UInt8]) -> [UInt8] {
            precondition(value.count < 0x80 || value.count < 0x100)
            return tag + (value.count < 0x80 ? [UInt8(value.count)] : [0x81, UInt8(value.count)]) + value
        }
        func person(_ tag: UInt8, _ name: String) -> [UInt8] {
            tlv(
                [tag],
                tlv([0x5F, 0x50], Array("20260101".utf8)) + tlv([0x5F, 0x51], Array(name.utf8))
                    + tlv([0x5F, 0x52], Array("+99 123 456".utf8))
                    + tlv([0x5F, 0x53], Array("1 MAIN STREET<UTOPIA".utf8)))
        }
        return tlv([0x70], tlv([0x02], [0x02]) + person(0xA1, "SPECIMEN<<ANNA") + person(0xA2, "SPECIMEN<<ERIK"))
    }

    /// `block` as PEM text: the label's BEGIN and END lines around its Base64, 64 characters a line.
    static func pem(_ label: String, _ block: [UInt8]?) -> [UInt8] {
        guard let block else { return [] }
        let b64 = Data(block).base64EncodedString(options: .lineLength64Characters)
        return Array("-----BEGIN \(label)-----\n\(b64)\n-----END \(label)-----\n".utf8)
    }

    /// clone-detection.json records (`EvidenceBundle`'s "emrtd.clone-detection/1") in the shapes a read writes:
    /// BAC or PACE access control, each Chip Authentication outcome, an Active Authentication transcript (invented
    /// hex, a made-up key), a recorded failure and a PACE-CAM record.
    static var cloneDetectionSeeds: [(String, String)] {
        let aa =
            #""activeAuthentication":{"challenge":"0102030405060708","signature":"00112233445566778899aabbccddeeff","publicKeyInfo":"3059301306072a8648ce3d020106082a8648ce3d030107034200041122","signatureAlgorithm":"ecdsa-with-SHA256"}"#
        let pace =
            #""accessControl":{"protocol":"PACE","password":"MRZ","protocolOID":"0.4.0.127.0.7.2.2.4.2.2","parameterId":13,"fellBackToBAC":false}"#
        let bac = #""accessControl":{"protocol":"BAC","password":"MRZ","fellBackToBAC":true}"#
        let cam =
            #""chipAuthenticationMapping":{"encryptedChipAuthenticationData":"aabb","chipAuthenticationData":"ccdd","chipMappingPublicKey":"04aabb","curve":{"p":"ff","a":"01","b":"02","generator":"0403","order":"07","cofactor":"01"}}"#
        func record(_ outcome: String, _ detail: String, _ more: [String]) -> String {
            ([
                "\"schema\":\"emrtd.clone-detection/1\"",
                #""chipAuthentication":{"outcome":"\#(outcome)","detail":"\#(detail)"}"#,
            ]
                + more).joined(separator: ",").wrappedInBraces
        }
        return [
            ("ca-succeeded-aa", record("succeeded", "CA-ECDH-AES-CBC-CMAC-128", [pace, aa])),
            ("ca-failed", record("failed", "the chip did not answer", [bac])),
            (
                "not-available-aa-failure",
                record("notAvailable", "", [bac, #""activeAuthenticationFailure":"no answer""#])
            ),
            ("not-performed", record("notPerformed", "no DG14", [#""activeAuthenticationNotPerformed":"no DG15""#])),
            ("pace-cam", record("succeeded", "PACE-CAM", [pace, cam])),
        ]
    }

    /// Step-up inputs in every shape `StepUpInput.parse` accepts (invented tokens and ids).
    static var stepUpSeeds: [(String, String)] {
        let operation =
            #"{"signicatOperation":{"version":"1","operation":"authentication","provider":"readid","token":"sut_fuzz.token.x9","url":"https://readid.example.test/odata/v1","processType":"substantial","processId":"0dca14cf-957d-46d9-b374-520f9c650859"}}"#
        let videoID =
            #"{"version":"1","operation":"authentication","provider":"signicatvideoid","token":"t","url":"https://video.example.test/v2","processType":"substantial","processId":"p","videoidProviderOptions":{"docType":1,"docTypes":[1,2,3],"defaultId":1}}"#
        let pre =
            #"{"signicatOperation":{"operation":"authentication","provider":"signicatvideoid","processType":"substantial"}}"#
        func context(_ key: String, _ op: String) -> String {
            #"{"\#(key)":{"context_content_b64":"\#(Data(op.utf8).base64EncodedString())","context_mime":"application/json"}}"#
        }
        return [
            ("operation", operation), ("videoid-bare", videoID), ("post", context("post_operation_context", operation)),
            ("pre", context("pre_operation_context", pre)),
            (
                "bare-context",
                #"{"context_content_b64":"\#(Data(videoID.utf8).base64EncodedString())","context_mime":"application/json"}"#
            ),
            ("error", #"{"type":"https://example.test/errors/x","title":"T","status":400,"detail":"d","traceId":"t"}"#),
        ]
    }
}

extension String {
    fileprivate var wrappedInBraces: String { "{" + self + "}" }
}
