import MRTDAccessControl

/// `POST /v1/access-data/check` (docs/service.md): the access data a person typed, checked by the one set of rules a
/// read uses (`AccessData.key`, through `ReadRequest.validate`) without starting anything. The kiosk page asks it
/// while the person types instead of keeping rules of its own. The answer names the field and the problem, in words
/// for a person; it never echoes a value.
enum AccessDataCheck {
    /// How the answer's message names each field (the kiosk page's labels).
    static func label(_ field: AccessData.Field) -> String {
        switch field {
        case .mrz: return "the MRZ"
        case .documentNumber: return "the document number"
        case .dateOfBirth: return "the date of birth"
        case .dateOfExpiry: return "the date of expiry"
        case .can: return "the CAN"
        }
    }

    static func handle(_ body: [String: Any]) throws(APIError) -> APIResponse {
        if let unknown = body.keys.sorted().first(where: { $0 != "access" }) { throw APIError.unknownField(unknown) }
        guard let access = body["access"] as? [String: Any] else {
            throw APIError(
                400, "bad_access",
                "access is missing: give {\"mrz\"}, {\"documentNumber\", \"dateOfBirth\", \"dateOfExpiry\"} or {\"can\"}"
            )
        }
        switch try ReadRequest.validate(access) {
        case .success(let key):
            return KioskAPI.json(200, ["valid": true, "kind": key.passwordType == .can ? "can" : "mrz"])
        case .failure(let problem):
            var text = problem.message(naming: label)
            if let first = text.first { text = first.uppercased() + text.dropFirst() }
            var answer: [String: Any] = [
                "valid": false, "problem": "\(problem.kind)", "message": text,
                "missing": problem.missing.map(\.rawValue),
            ]
            if let field = problem.field { answer["field"] = field.rawValue }
            return KioskAPI.json(200, answer)
        }
    }
}
