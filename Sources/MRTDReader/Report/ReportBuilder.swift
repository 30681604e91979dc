public import ASN1TLV
import FaceImaging
import Foundation
import Glibc
import MRTDCrypto
public import MRTDDocument
import MRTDTrust

/// Builds the JSON report (docs/architecture.md §4.2) from a read and its verification.
public enum ReportBuilder {
    /// The `document` object from DG1's MRZ, dates resolved against `reference`.
    public static func document(from mrz: MRZ, reference: ASN1Time) -> ReadReport.Document {
        let ref = CalendarDate(year: reference.year, month: reference.month, day: reference.day)
        func iso(_ d: CalendarDate?, _ raw: String) -> String {
            guard let d, d.month > 0, d.day > 0 else { return raw }
            func pad(_ v: Int, _ w: Int) -> String {
                String(repeating: "0", count: max(0, w - String(v).count)) + String(v)
            }
            return "\(pad(d.year, 4))-\(pad(d.month, 2))-\(pad(d.day, 2))"
        }
        let birth =
            mrz.dateOfBirth.isPlausible
            ? iso(mrz.dateOfBirth.resolvedAsBirthDate(reference: ref), mrz.dateOfBirth.raw) : mrz.dateOfBirth.raw
        let expiry =
            mrz.dateOfExpiry.isPlausible
            ? iso(mrz.dateOfExpiry.resolvedAsExpiryDate(reference: ref), mrz.dateOfExpiry.raw) : mrz.dateOfExpiry.raw
        let personal: String? = mrz.format == .td3 ? clean(mrz.optionalData) : nil
        return ReadReport.Document(
            documentCode: clean(mrz.documentCode), issuingState: clean(mrz.issuingState),
            documentNumber: mrz.documentNumber, surname: mrz.primaryIdentifier,
            givenNames: mrz.secondaryIdentifier, nationality: clean(mrz.nationality),
            dateOfBirth: birth, sex: String(mrz.sexCharacter == "<" ? "X" : mrz.sexCharacter),
            dateOfExpiry: expiry, optionalData: clean(mrz.optionalData),
            personalNumber: personal?.isEmpty == false ? personal : nil,
            mrz: mrz.lines.joined(separator: "\n"))
    }

    static func clean(_ s: String) -> String {
        String(s.split(separator: "<", omittingEmptySubsequences: true).joined(separator: " "))
    }

    /// The whole report for a live read.
    /// `faceCheck`: the face's decoding done earlier (see `faceImage(_:storedPath:check:)`).
    public static func report(
        for result: ReadResult, verification: VerificationOutcome?, faceImagePath: String? = nil,
        faceCheck: FaceDisplayCheck? = nil
    ) -> ReadReport {
        var r = ReadReport()
        r.reader = ReadReport.Reader(
            name: result.readerName, extendedLength: result.usedExtendedLength,
            maxCommandSize: result.capabilities.maxCommandSize, maxResponseSize: result.capabilities.maxResponseSize)
        let ac = result.accessControl
        r.accessControl = ReadReport.AccessControl(
            protocol: ac.protocol.rawValue, password: ac.passwordType.description,
            mapping: ac.mapping?.rawValue, keyAgreement: ac.keyAgreement?.rawValue,
            parameterId: ac.parameterId, cipher: ac.cipher.rawValue,
            fellBackToBAC: ac.fellBackToBAC)
        fill(
            &r, files: result.files, facts: result.fileFacts, reference: verification?.validationTime ?? ASN1Time.now,
            faceImagePath: faceImagePath, faceCheck: faceCheck)
        for (f, outcome) in result.unreadFiles.sorted(by: { $0.key < $1.key }) {
            r.unreadFiles[f.rawValue] = describe(outcome)
        }
        if let verification { r.verification = reportVerification(verification) }
        if let d = verification?.check(.downgrade), d.detail.hasPrefix(DocumentVerifier.acceptedDowngradeDetail) {
            r.accessControl?.downgradeAccepted = true
            r.warnings.append(d.detail)
        }
        r.transport = ReadReport.Transport(
            apdus: result.statistics.apdus, bytesSent: result.statistics.bytesSent,
            bytesReceived: result.statistics.bytesReceived,
            elapsedMs: (result.elapsedMilliseconds * 10).rounded() / 10)
        if result.resumptions > 0 {
            r.warnings.append(
                "the read resumed \(result.resumptions) time(s) after an interruption; resumed files: "
                    + result.resumedFiles.map(\.rawValue).joined(separator: ", "))
        }
        return r
    }

    /// Files, document and face image (shared by live reads and offline verification).
    public static func fill(
        _ r: inout ReadReport, files: [LDSFile: [UInt8]], facts: [LDSFile: FileFacts], reference: ASN1Time,
        faceImagePath: String?, faceCheck: FaceDisplayCheck? = nil
    ) {
        r.files = files.keys.sorted().map { f in
            let b = files[f]!
            let fact = facts[f]
            return ReadReport.File(
                name: f.rawValue, fid: hex4(f.fid), size: b.count, sha256: Hex.encode(HashAlgorithm.sha256.hash(b)),
                apdus: fact?.apdus ?? 0, ms: ((fact?.milliseconds ?? 0) * 100).rounded() / 100,
                resumed: fact?.resumptions ?? 0)
        }
        let doc = LDSDocument(files: files)
        if let mrz = doc.mrz {
            var d = document(from: mrz, reference: reference)
            addPersonalData(&d, from: doc, warnings: &r.warnings)
            r.document = d
        }
        if let face = doc.faceImage { r.faceImage = faceImage(face, storedPath: faceImagePath, check: faceCheck) }
    }

    /// The report's `faceImage`: the stored format, and whether (and as what) it can be shown. Decoding is
    /// bounded by `ImageLimits.standard`; an image that cannot be decoded gives `error`, never a failed report.
    /// `storedPath` is where the evidence bundle wrote the stored bytes (`face.jpg` or `face.jp2`); `face.jpg`
    /// beside it is the displayable image.
    ///
    /// `check`: the decoding done earlier (`FaceDisplayCheck`, e.g. while the rest of the document was read); it is
    /// used only when it was made from these very image bytes, else the image is decoded here.
    public static func faceImage(_ face: FaceImageInfo, storedPath: String?, check: FaceDisplayCheck? = nil)
        -> ReadReport.FaceImage
    {
        var f = ReadReport.FaceImage(
            format: face.format.rawValue, width: face.width ?? face.declaredWidth ?? 0,
            height: face.height ?? face.declaredHeight ?? 0, storedFormat: face.format.rawValue,
            storedPath: storedPath)
        let outcome =
            check.flatMap { $0.imageData == face.imageData ? $0.outcome : nil }
            ?? FaceDisplayCheck(imageData: face.imageData).outcome
        let decodable: Bool
        switch outcome {
        case .success:
            decodable = true
            f.deliveredFormat = ImageFormat.jpeg.rawValue
        case .failure(let error):
            decodable = false
            f.error = error.description
        }
        if let storedPath {
            let delivered = URL(fileURLWithPath: storedPath).deletingLastPathComponent()
                .appendingPathComponent(EvidenceBundle.faceImageName(.jpeg)).path
            // A stored JPEG is face.jpg itself; a JPEG 2000 face has a face.jpg only when it decoded.
            if face.format == .jpeg || decodable { f.path = delivered }
        }
        return f
    }

    public static func reportVerification(_ v: VerificationOutcome) -> ReadReport.Verification {
        ReadReport.Verification(
            checks: v.checks.map {
                ReadReport.Check(name: $0.name.rawValue, status: $0.status.rawValue, detail: $0.detail)
            },
            chipVerification: v.chipVerification.rawValue, chipCloneDetection: v.chipCloneDetection.rawValue,
            status: v.status.rawValue, validationTime: v.validationTime.description, reason: v.reason,
            allowExpired: v.allowExpired)
    }

    static func describe(_ o: FileReadOutcome) -> String {
        switch o {
        case .complete: return "read"
        case .notFound: return "not on the chip (6A82)"
        case .accessDenied: return "access denied (6982): needs EAC terminal authentication"
        case .failed(let sw): return "failed: \(sw)"
        }
    }

    static func hex4(_ v: UInt16) -> String { Hex.encode([UInt8(v >> 8), UInt8(v & 0xFF)]) }
}

extension ASN1Time {
    /// The current time (UTC), to the second.
    public static var now: ASN1Time {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return ASN1Time(secondsSince1970: Int64(ts.tv_sec))
    }
}
