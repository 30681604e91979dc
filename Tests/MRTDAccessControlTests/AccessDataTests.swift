import MRTDAccessControl
import Testing

/// The one set of access-data rules (`AccessData.key`) that `emrtd read`, `stepup run` and `emrtd serve` share: each
/// rule once, with the field named as the front end names it and the value never repeated.
struct AccessDataTests {
    static let mrz =
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<L898902C36UTO7408122F1204159ZE184226B<<<<<10"
    static func cli(_ field: AccessData.Field) -> String { "--" + field.rawValue }
    static func api(_ field: AccessData.Field) -> String { "access." + field.rawValue }

    @Test func aWholeMRZGivesItsKey() throws {
        let key = try AccessData.key(mrz: Self.mrz.lowercased().replacing("UTO".lowercased(), with: "uto "))
        guard case .mrz(let k) = key else {
            Issue.record("not an MRZ key")
            return
        }
        #expect(k.documentNumber == "L898902C3")
        #expect(k.dateOfBirth == "740812")
        #expect(k.dateOfExpiry == "120415")
    }

    @Test func theThreeFieldsGiveTheSameKeyAsTheMRZ() throws {
        let fields = try AccessData.key(documentNumber: "l898902c3", dateOfBirth: "740812", dateOfExpiry: "120415")
        #expect(fields == (try AccessData.key(mrz: Self.mrz)))
        #expect(try AccessData.key(can: "123456") == .can("123456"))
    }

    @Test(arguments: [
        // a wrong composite (last) check digit: the key's own digits hold, the zone was still misread
        (String(Self.mrz.dropLast()) + "1", "composite (last) check digit"),
        (String(Self.mrz.dropLast(3)), "2×44"),
    ])
    func aBadMRZIsRefusedNamingTheField(_ text: String, _ why: String) {
        #expect {
            _ = try AccessData.key(mrz: text)
        } throws: { error in
            guard let p = error as? AccessData.Problem else { return false }
            let m = p.message(naming: Self.api)
            return p.kind == .invalid && p.field == .mrz && m.hasPrefix("access.mrz") && m.contains(why)
                && !m.contains("L898902C3")
        }
    }

    @Test(
        arguments: [
            ("230229", AccessData.Field.dateOfBirth, "not a valid date"),  // 2023 has no 29 February
            ("741331", .dateOfBirth, "not a valid date"),
            ("7408", .dateOfBirth, "YYMMDD"),
            ("240229", .dateOfExpiry, nil),  // 2024 does
        ] as [(String, AccessData.Field, String?)])
    func datesAreRealDates(_ date: String, _ field: AccessData.Field, _ why: String?) {
        let birth = field == .dateOfBirth ? date : "740812"
        let expiry = field == .dateOfExpiry ? date : "120415"
        do {
            _ = try AccessData.key(documentNumber: "L898902C3", dateOfBirth: birth, dateOfExpiry: expiry)
            #expect(why == nil, "\(date) was taken")
        } catch {
            #expect(error.field == field)
            let m = error.message(naming: Self.cli)
            #expect(why.map { m.contains($0) } == true, "\(m)")
            #expect(m.hasPrefix("--\(field.rawValue)"))
        }
    }

    @Test func missingConflictingAndMalformedAreToldApart() throws {
        #expect(throws: AccessData.Problem.self) { try AccessData.key() }
        do { _ = try AccessData.key() } catch {
            #expect(error.kind == .missing && error.missing == [.documentNumber, .dateOfBirth, .dateOfExpiry])
        }
        do { _ = try AccessData.key(documentNumber: "L898902C3") } catch {
            #expect(error.kind == .missing && error.missing == [.dateOfBirth, .dateOfExpiry])
            #expect(error.message(naming: Self.cli).hasPrefix("missing --dateOfBirth, --dateOfExpiry"))
        }
        do { _ = try AccessData.key(mrz: Self.mrz, can: "123456") } catch {
            #expect(error.kind == .conflicting)
        }
        do { _ = try AccessData.key(can: "12345A") } catch {
            #expect(error.kind == .invalid && error.field == .can)
            #expect(!error.message(naming: Self.api).contains("12345A"))
        }
        do {
            _ = try AccessData.key(documentNumber: "L89-8902", dateOfBirth: "740812", dateOfExpiry: "120415")
        } catch {
            #expect(error.kind == .invalid && error.field == .documentNumber)
        }
    }
}
