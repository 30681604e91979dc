public import Foundation

/// The JSON report of a read (`"schema": "emrtd.report/1"`, docs/architecture.md §4.2). Field names are a contract:
/// fields may be added, never renamed or dropped without a new schema version.
public struct ReadReport: Codable, Sendable, Hashable {
    public static let schemaName = "emrtd.report/1"

    public struct Tool: Codable, Sendable, Hashable {
        public var name: String
        public var version: String
        public init(name: String = "emrtd", version: String = EMRTDKitVersion.string) {
            self.name = name
            self.version = version
        }
    }

    public struct Reader: Codable, Sendable, Hashable {
        public var name: String
        public var extendedLength: Bool
        public var maxCommandSize: Int
        public var maxResponseSize: Int
        public init(name: String, extendedLength: Bool, maxCommandSize: Int, maxResponseSize: Int) {
            self.name = name
            self.extendedLength = extendedLength
            self.maxCommandSize = maxCommandSize
            self.maxResponseSize = maxResponseSize
        }
    }

    public struct AccessControl: Codable, Sendable, Hashable {
        /// "PACE" or "BAC"
        public var `protocol`: String
        /// "MRZ" or "CAN"
        public var password: String
        /// "GM", "IM", "CAM" or nil (BAC)
        public var mapping: String?
        /// "ECDH", "DH" or nil (BAC)
        public var keyAgreement: String?
        public var parameterId: Int?
        /// "3DES", "AES-128", "AES-192", "AES-256"
        public var cipher: String
        public var fellBackToBAC: Bool
        /// true when the read accepted a downgrade (`--allow-bac-fallback`, docs/report.md "Downgrade"); absent
        /// otherwise.
        public var downgradeAccepted: Bool?
        public init(
            protocol: String, password: String, mapping: String?, keyAgreement: String?, parameterId: Int?,
            cipher: String, fellBackToBAC: Bool
        ) {
            self.protocol = `protocol`
            self.password = password
            self.mapping = mapping
            self.keyAgreement = keyAgreement
            self.parameterId = parameterId
            self.cipher = cipher
            self.fellBackToBAC = fellBackToBAC
        }
    }

    public struct Document: Codable, Sendable, Hashable {
        public var documentCode: String
        public var issuingState: String
        public var documentNumber: String
        public var surname: String
        public var givenNames: String
        public var nationality: String
        /// YYYY-MM-DD, or as on the MRZ (YYMMDD) when the century is ambiguous.
        public var dateOfBirth: String
        public var sex: String
        public var dateOfExpiry: String
        public var optionalData: String
        public var personalNumber: String?
        public var mrz: String
        /// DG11 (docs/report.md), when read and parsed.
        public var additionalPersonalDetails: AdditionalPersonalDetails? = nil
        /// DG12, when read and parsed.
        public var additionalDocumentDetails: AdditionalDocumentDetails? = nil
        /// DG16, when read and parsed.
        public var personsToNotify: [PersonToNotify]? = nil
        /// DG5 displayed portraits, when read and parsed.
        public var displayedPortraits: [ImageInfo]? = nil
        /// DG7 displayed signatures or usual marks, when read and parsed.
        public var displayedSignatures: [ImageInfo]? = nil
        public init(
            documentCode: String, issuingState: String, documentNumber: String, surname: String, givenNames: String,
            nationality: String, dateOfBirth: String, sex: String, dateOfExpiry: String, optionalData: String,
            personalNumber: String?, mrz: String
        ) {
            self.documentCode = documentCode
            self.issuingState = issuingState
            self.documentNumber = documentNumber
            self.surname = surname
            self.givenNames = givenNames
            self.nationality = nationality
            self.dateOfBirth = dateOfBirth
            self.sex = sex
            self.dateOfExpiry = dateOfExpiry
            self.optionalData = optionalData
            self.personalNumber = personalNumber
            self.mrz = mrz
        }
    }

    public struct File: Codable, Sendable, Hashable {
        /// "COM", "SOD", "DG1".."DG16", "CardAccess", "CardSecurity"
        public var name: String
        /// File identifier, hex ("011E").
        public var fid: String
        public var size: Int
        public var sha256: String
        public var apdus: Int
        /// The same as `elapsedMs`; kept because `emrtd.report/1` consumers read it (docs/report.md).
        public var ms: Double
        /// Time spent reading this file, in milliseconds (the naming of `transport.elapsedMs`).
        public var elapsedMs: Double?
        /// How many times reading this file resumed after an interruption (0 when read in one go).
        public var resumed: Int
        public init(name: String, fid: String, size: Int, sha256: String, apdus: Int, ms: Double, resumed: Int) {
            self.name = name
            self.fid = fid
            self.size = size
            self.sha256 = sha256
            self.apdus = apdus
            self.ms = ms
            self.elapsedMs = ms
            self.resumed = resumed
        }
    }

    public struct FaceImage: Codable, Sendable, Hashable {
        /// The stored format: "jpeg" or "jpeg2000" (as `storedFormat`; kept for readers of the first fields).
        public var format: String
        public var width: Int
        public var height: Int
        /// `face.jpg` of the evidence bundle (`--out`): the image a browser shows; nil without `--out` or when
        /// a stored JPEG 2000 image could not be decoded.
        public var path: String?
        /// The format DG2 stores the face in: "jpeg" or "jpeg2000".
        public var storedFormat: String?
        /// The format delivered for display (`face.jpg`, `emrtd serve`'s face endpoint, the HTML report):
        /// "jpeg"; nil when the stored image cannot be decoded (see `error`).
        public var deliveredFormat: String?
        /// Why the stored image cannot be decoded (truncated, corrupt, declared size over the limits, …).
        public var error: String?
        /// The file holding the bytes exactly as stored (`face.jpg` or `face.jp2`), with `--out`.
        public var storedPath: String?
        public init(
            format: String, width: Int, height: Int, path: String? = nil, storedFormat: String? = nil,
            deliveredFormat: String? = nil, error: String? = nil, storedPath: String? = nil
        ) {
            self.format = format
            self.width = width
            self.height = height
            self.path = path
            self.storedFormat = storedFormat
            self.deliveredFormat = deliveredFormat
            self.error = error
            self.storedPath = storedPath
        }
    }

    public struct Check: Codable, Sendable, Hashable {
        public var name: String
        /// "passed", "failed", "notPresent", "notChecked"
        public var status: String
        public var detail: String
        public init(name: String, status: String, detail: String) {
            self.name = name
            self.status = status
            self.detail = detail
        }
    }

    public struct Verification: Codable, Sendable, Hashable {
        public var checks: [Check]
        /// "SUCCEEDED", "FAILED", "NOT_CHECKED"
        public var chipVerification: String
        /// "SUCCEEDED", "FAILED", "NOT_AVAILABLE"
        public var chipCloneDetection: String
        /// "accepted", "inconclusive", "rejected"
        public var status: String
        /// The validation time used (ISO 8601).
        public var validationTime: String?
        /// Why the verdict is what it is, one sentence for people (`VerificationOutcome.reason`).
        public var reason: String?
        /// Whether the caller accepted a document past its date of expiry (`--allow-expired`).
        public var allowExpired: Bool?
        public init(
            checks: [Check], chipVerification: String, chipCloneDetection: String, status: String,
            validationTime: String?, reason: String? = nil, allowExpired: Bool? = nil
        ) {
            self.checks = checks
            self.chipVerification = chipVerification
            self.chipCloneDetection = chipCloneDetection
            self.status = status
            self.validationTime = validationTime
            self.reason = reason
            self.allowExpired = allowExpired
        }
    }

    public struct Transport: Codable, Sendable, Hashable {
        public var apdus: Int
        public var bytesSent: Int
        public var bytesReceived: Int
        public var elapsedMs: Double
        public init(apdus: Int, bytesSent: Int, bytesReceived: Int, elapsedMs: Double) {
            self.apdus = apdus
            self.bytesSent = bytesSent
            self.bytesReceived = bytesReceived
            self.elapsedMs = elapsedMs
        }
    }

    public var schema: String = ReadReport.schemaName
    public var tool = Tool()
    /// When the read started (ISO 8601 UTC, `ReadReport.timestamp`); nil for `emrtd verify` of a bundle.
    public var readAt: String?

    /// ISO 8601 UTC with fractional seconds: the form of `readAt` and of the trace file's times.
    public static func timestamp(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }
    /// The Active Authentication challenge the caller gave (`--aa-challenge`, or the step-up process binding), hex.
    public var activeAuthenticationChallenge: String?
    public var reader: Reader?
    public var accessControl: AccessControl?
    public var document: Document?
    public var files: [File] = []
    public var faceImage: FaceImage?
    public var verification: Verification?
    public var transport: Transport?
    /// Files that could not be read, with the reason (e.g. DG3 "access denied: needs EAC").
    public var unreadFiles: [String: String] = [:]
    /// Warnings a person should see (no secrets).
    public var warnings: [String] = []

    public init() {}
}

/// The package version printed by `emrtd --version` and written into reports.
public enum EMRTDKitVersion {
    public static let string = "0.9.0"
}
