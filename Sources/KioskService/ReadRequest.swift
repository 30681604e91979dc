import ASN1TLV
import MRTDAccessControl
import MRTDDocument
import MRTDReader

/// `POST /v1/reads`' body, checked before anything touches a reader. Error messages name the field and
/// the problem, never the value (the MRZ and the CAN are secrets).
struct ReadRequest {
    var reader: String?
    var key: AccessKey
    var files: Set<LDSFile>?
    var aaChallenge: [UInt8]?
    var waitSeconds: Double
    var bacFallback: Bool

    static let maxWaitSeconds = 600.0

    init(json o: [String: Any]) throws(APIError) {
        let known: Set<String> = ["reader", "access", "files", "aaChallenge", "waitSeconds", "bacFallback"]
        if let unknown = o.keys.sorted().first(where: { !known.contains($0) }) {
            throw APIError.unknownField(unknown)
        }
        if let r = o["reader"] {
            guard let s = r as? String, !s.isEmpty, s.count <= 200 else {
                throw APIError(400, "bad_request", "reader must be a non-empty string")
            }
            reader = s
        }
        guard let access = o["access"] as? [String: Any] else {
            throw APIError(
                400, "bad_access",
                "access is missing: give {\"mrz\"}, {\"documentNumber\", \"dateOfBirth\", \"dateOfExpiry\"} or {\"can\"}"
            )
        }
        key = try Self.key(access)
        if let f = o["files"] {
            guard let list = f as? [String], list.count <= 32 else {
                throw APIError(400, "bad_request", "files must be an array of file names")
            }
            var out = Set<LDSFile>()
            for part in list {
                guard let file = LDSFile(name: part) else {
                    throw APIError(
                        400, "bad_request", "files: unknown file (use COM, SOD, DG1…DG16, CardAccess, CardSecurity)")
                }
                out.insert(file)
            }
            guard !out.isEmpty else { throw APIError(400, "bad_request", "files is empty") }
            files = out
        }
        if let c = o["aaChallenge"] {
            guard let s = c as? String, let b = Hex.decode(s), b.count == 8 else {
                throw APIError(400, "bad_request", "aaChallenge must be 8 bytes in hex (16 hex digits)")
            }
            aaChallenge = b
        }
        waitSeconds = 60
        if let w = o["waitSeconds"] {
            guard let n = w as? Double, n > 0, n <= Self.maxWaitSeconds else {
                throw APIError(
                    400, "bad_request",
                    "waitSeconds must be a number of seconds above 0 and at most \(Int(Self.maxWaitSeconds))")
            }
            waitSeconds = n
        }
        bacFallback = true
        if let b = o["bacFallback"] {
            guard let v = b as? Bool else { throw APIError(400, "bad_request", "bacFallback must be true or false") }
            bacFallback = v
        }
    }

    /// The access key from `{"mrz"}`, `{"documentNumber", "dateOfBirth", "dateOfExpiry"}` or `{"can"}`, by the one
    /// set of access-data rules (`AccessData.key`) the command line uses too.
    static func key(_ a: [String: Any]) throws(APIError) -> AccessKey {
        switch try validate(a) {
        case .success(let key): return key
        case .failure(let problem):
            throw APIError(400, "bad_access", problem.message(naming: { "access.\($0.rawValue)" }))
        }
    }

    /// `AccessData.key` over an `access` object: an APIError for a malformed object (a field that is not a string,
    /// an unknown field), else the key or the rules' problem (for `POST /v1/access-data/check`).
    static func validate(_ a: [String: Any]) throws(APIError) -> Result<AccessKey, AccessData.Problem> {
        func string(_ name: String) throws(APIError) -> String? {
            guard let v = a[name] else { return nil }
            guard let s = v as? String, s.count <= 200 else {
                throw APIError(400, "bad_access", "access.\(name) must be a string")
            }
            return s
        }
        let allowed = Set(AccessData.Field.allCases.map(\.rawValue))
        if let unknown = a.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw APIError.unknownField(unknown, code: "bad_access", in: "access: ")
        }
        let (mrz, number, birth, expiry, can) = (
            try string("mrz"), try string("documentNumber"), try string("dateOfBirth"), try string("dateOfExpiry"),
            try string("can")
        )
        do {
            return .success(
                try AccessData.key(mrz: mrz, documentNumber: number, dateOfBirth: birth, dateOfExpiry: expiry, can: can)
            )
        } catch {
            return .failure(error)
        }
    }

    var readOptions: ReadOptions {
        // bacFallback: false forbids BAC (PACE only); the service never accepts a downgrade (docs/service.md)
        var o = ReadOptions(accessKey: key, files: files)
        o.forbidBAC = !bacFallback
        o.activeAuthenticationChallenge = aaChallenge
        // a pulled or flickering card may come back while the read's wait lasts (kiosk behaviour)
        o.representTimeout = waitSeconds
        return o
    }
}
