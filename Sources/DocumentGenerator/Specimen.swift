import MRTDDocument

/// The holder and document data of a generated specimen: the ICAO "Utopia" specimen of ICAO 9303-3/-4/-5
/// (Anna Maria Eriksson, UTO), with an expiry date moved into the future. No real person's data.
public struct Specimen: Sendable, Hashable {
    public enum Format: String, Sendable, Hashable, Codable {
        /// Passport, 2 × 44 characters (ICAO 9303-4).
        case td3
        /// ID card, 3 × 30 characters (ICAO 9303-5).
        case td1
        /// ID card, 2 × 36 characters (ICAO 9303-6).
        case td2
    }

    public var format: Format
    /// "P" (passport), "I" / "ID" (identity card).
    public var documentCode: String
    public var issuingState: String
    public var surname: String
    public var givenNames: String
    public var documentNumber: String
    public var nationality: String
    /// YYMMDD
    public var dateOfBirth: String
    /// "F", "M" or "<".
    public var sex: String
    /// YYMMDD
    public var dateOfExpiry: String
    /// TD3: personal number / optional data (14). TD1: optional data of line 1 (15). TD2: optional data (7).
    public var optionalData: String
    /// TD1: optional data of line 2 (11).
    public var optionalData2: String
    public var can: String

    // DG11 (ICAO 9303-10 §4.7.11)
    public var fullName: String
    public var otherNames: [String]
    public var personalNumber: String
    /// yyyymmdd
    public var fullDateOfBirth: String
    public var placeOfBirth: String
    public var address: String
    public var telephone: String
    public var profession: String
    public var title: String
    public var personalSummary: String
    public var otherTravelDocuments: [String]
    public var custodyInformation: String

    // DG12 (ICAO 9303-10 §4.7.12)
    public var issuingAuthority: String
    /// yyyymmdd
    public var dateOfIssue: String
    public var otherPersons: [String]
    public var endorsements: String
    public var taxOrExitRequirements: String
    /// yyyymmddhhmmss
    public var personalizationTime: String
    public var personalizationDeviceSerial: String

    // DG16 (ICAO 9303-10 §4.7.16)
    public struct PersonToNotify: Sendable, Hashable {
        /// yyyymmdd
        public var dateRecorded: String
        /// primary<<secondary
        public var name: String
        public var telephone: String
        /// fields separated by '<'
        public var address: String
        public init(dateRecorded: String, name: String, telephone: String, address: String) {
            self.dateRecorded = dateRecorded
            self.name = name
            self.telephone = telephone
            self.address = address
        }
    }
    public var personsToNotify: [PersonToNotify] = [
        PersonToNotify(
            dateRecorded: "20210416", name: "ERIKSSON<<LARS", telephone: "+1 555 0101",
            address: "123 MAPLE STREET<ZENITH<UTOPIA"),
        PersonToNotify(
            dateRecorded: "20210416", name: "ERIKSSON<<EVA<MARIA", telephone: "+1 555 0102",
            address: "7 HARBOUR ROAD<PORT ZENITH<UTOPIA"),
    ]

    /// The TD3 Utopia passport specimen (ICAO 9303-4 Appendix A), expiring 15 April 2031.
    public static let utopiaPassport = Specimen(
        format: .td3, documentCode: "P", issuingState: "UTO", surname: "ERIKSSON", givenNames: "ANNA MARIA",
        documentNumber: "L898902C3", nationality: "UTO", dateOfBirth: "740812", sex: "F", dateOfExpiry: "310415",
        optionalData: "ZE184226B", optionalData2: "", can: "123456",
        fullName: "ERIKSSON<<ANNA<MARIA", otherNames: ["ERIKSSON<<ANNA", "ERIKSSON<<MARIA"],
        personalNumber: "ZE184226B",
        fullDateOfBirth: "19740812", placeOfBirth: "ZENITH<UTOPIA", address: "123 MAPLE STREET<ZENITH<UTOPIA",
        telephone: "+1 555 0100", profession: "SPECIMEN", title: "DR", personalSummary: "SPECIMEN DOCUMENT ONLY",
        otherTravelDocuments: ["D23145890"], custodyInformation: "NONE",
        issuingAuthority: "UTOPIA PASSPORT OFFICE", dateOfIssue: "20210416", otherPersons: ["ERIKSSON<<LARS"],
        endorsements: "SPECIMEN", taxOrExitRequirements: "NONE", personalizationTime: "20210416093000",
        personalizationDeviceSerial: "UTO-PERSO-0001")

    /// The TD1 Utopia identity card specimen (ICAO 9303-5 Appendix A), expiring 15 April 2031.
    public static let utopiaIDCard: Specimen = {
        var s = utopiaPassport
        s.format = .td1
        s.documentCode = "I"
        s.documentNumber = "D23145890"
        s.optionalData = ""
        s.optionalData2 = ""
        s.otherTravelDocuments = ["L898902C3"]
        return s
    }()

    static func field(_ s: String, _ width: Int) -> String {
        let t = s.uppercased().map { $0 == " " ? "<" : $0 }
        return String((t + Array(repeating: "<", count: max(0, width - t.count))).prefix(width))
    }

    static func check(_ s: String) -> String { MRZCheckDigit.character(s).map(String.init) ?? "<" }

    /// The name field: primary identifier, "<<", secondary identifier (ICAO 9303-3 §4.6).
    func nameField(_ width: Int) -> String {
        Specimen.field(
            surname.replacingOccurrences(of: " ", with: "<") + "<<"
                + givenNames.replacingOccurrences(of: " ", with: "<"), width)
    }

    /// The MRZ lines with check digits (ICAO 9303-4 §4.2.2 for TD3, 9303-5 §4.2.2 for TD1, 9303-6 §4.2.2 for TD2).
    public var mrzLines: [String] {
        let docNumber = Specimen.field(documentNumber, 9)
        let docCheck = Specimen.check(docNumber)
        let dobCheck = Specimen.check(dateOfBirth)
        let doeCheck = Specimen.check(dateOfExpiry)
        switch format {
        case .td3:
            let l1 = Specimen.field(documentCode, 2) + Specimen.field(issuingState, 3) + nameField(39)
            let optional = Specimen.field(optionalData, 14)
            let optionalCheck = optionalData.isEmpty ? "<" : Specimen.check(optional)
            let composite = Specimen.check(
                docNumber + docCheck + dateOfBirth + dobCheck + dateOfExpiry + doeCheck
                    + optional + optionalCheck)
            let l2 =
                docNumber + docCheck + Specimen.field(nationality, 3) + dateOfBirth + dobCheck + Specimen.field(sex, 1)
                + dateOfExpiry + doeCheck + optional + optionalCheck + composite
            return [l1, l2]
        case .td1:
            let opt1 = Specimen.field(optionalData, 15)
            let opt2 = Specimen.field(optionalData2, 11)
            let l1 = Specimen.field(documentCode, 2) + Specimen.field(issuingState, 3) + docNumber + docCheck + opt1
            let l2head =
                dateOfBirth + dobCheck + Specimen.field(sex, 1) + dateOfExpiry + doeCheck
                + Specimen.field(nationality, 3) + opt2
            let composite = Specimen.check(
                docNumber + docCheck + opt1 + dateOfBirth + dobCheck + dateOfExpiry + doeCheck + opt2)
            return [l1, l2head + composite, nameField(30)]
        case .td2:
            let l1 = Specimen.field(documentCode, 2) + Specimen.field(issuingState, 3) + nameField(31)
            let optional = Specimen.field(optionalData, 7)
            let composite = Specimen.check(
                docNumber + docCheck + dateOfBirth + dobCheck + dateOfExpiry + doeCheck + optional)
            let l2 =
                docNumber + docCheck + Specimen.field(nationality, 3) + dateOfBirth + dobCheck + Specimen.field(sex, 1)
                + dateOfExpiry + doeCheck + optional + composite
            return [l1, l2]
        }
    }

    /// All MRZ lines concatenated.
    public var mrz: String { mrzLines.joined() }
}

extension Specimen: CustomStringConvertible {
    /// Redacted: the MRZ data and CAN are access secrets even for a specimen.
    public var description: String { "Specimen(\(format.rawValue), \(issuingState), redacted)" }
}
