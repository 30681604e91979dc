import Testing

@testable import KioskService

/// A request field the service does not know is named in the error only when it looks like a field name: access
/// data put where a key goes (the specimen MRZ here) never comes back in an error.
@Suite struct UnknownFieldTests {
    @Test func aFieldNameIsQuotedAccessDataIsNot() throws {
        #expect(APIError.unknownField("waitSecs").message == "unknown field 'waitSecs'")
        let mrz = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<L898902C36UTO7408122F1204159ZE184226B<<<<<10"
        for key in [mrz, "L898902C3", "123456 ", "L898902C36UTO7408122F1204159ZE184226B"] {
            let e = APIError.unknownField(key, code: "bad_access", in: "access: ")
            #expect(e.status == 400 && e.code == "bad_access")
            #expect(!e.message.contains(key) && e.message == "access: an unknown field", "\(e.message)")
        }
        // the request parser uses it
        do {
            _ = try ReadRequest(json: ["access": ["can": "123456"], mrz: 1])
            Issue.record("an unknown field was accepted")
        } catch {
            #expect(error.code == "bad_request" && !error.message.contains("ERIKSSON"), "\(error.message)")
        }
    }
}
