import ASN1TLV
import MRTDCrypto
public import MRTDDocument

// The `document` fields from DG5, DG7, DG11, DG12 and DG16 (docs/report.md, "Personal data groups").
extension ReadReport {
    /// A name as ICAO 9303-3 writes it: primary identifier '<<' secondary identifier, fillers → spaces.
    public struct Name: Codable, Sendable, Hashable {
        public var primary: String
        public var secondary: String
        public init(primary: String, secondary: String) {
            self.primary = primary
            self.secondary = secondary
        }
    }

    /// A date element: `format` says whether `value` is ISO 8601 ("iso8601": YYYY-MM-DD, or
    /// YYYY-MM-DDThh:mm:ss for a time) or the stored text, unchanged ("raw": partial dates, fillers,
    /// values that are no calendar date).
    public struct DateValue: Codable, Sendable, Hashable {
        public var value: String
        /// "iso8601" or "raw"
        public var format: String
        public init(value: String, format: String) {
            self.value = value
            self.format = format
        }
    }

    /// An image stored in a data group: what it is, not its bytes (those are in the evidence bundle).
    public struct ImageInfo: Codable, Sendable, Hashable {
        /// "jpeg", "jpeg2000", "png" or "unknown"
        public var format: String
        /// From the image's own header; nil when it cannot be read.
        public var width: Int?
        public var height: Int?
        public var size: Int
        public var sha256: String
        public init(format: String, width: Int?, height: Int?, size: Int, sha256: String) {
            self.format = format
            self.width = width
            self.height = height
            self.size = size
            self.sha256 = sha256
        }
    }

    /// DG11, additional personal details (ICAO 9303-10 §4.7.11).
    public struct AdditionalPersonalDetails: Codable, Sendable, Hashable {
        public var fullName: Name?
        public var otherNames: [Name]
        public var personalNumber: String?
        public var fullDateOfBirth: DateValue?
        /// The '<'-separated parts (e.g. town, country).
        public var placeOfBirth: [String]?
        /// The '<'-separated parts (e.g. street, town, state, postcode).
        public var address: [String]?
        public var telephone: String?
        public var profession: String?
        public var title: String?
        public var personalSummary: String?
        public var proofOfCitizenship: ImageInfo?
        public var otherValidTravelDocumentNumbers: [String]?
        public var custodyInformation: String?
        public init(
            fullName: Name? = nil, otherNames: [Name] = [], personalNumber: String? = nil,
            fullDateOfBirth: DateValue? = nil,
            placeOfBirth: [String]? = nil, address: [String]? = nil, telephone: String? = nil,
            profession: String? = nil,
            title: String? = nil, personalSummary: String? = nil, proofOfCitizenship: ImageInfo? = nil,
            otherValidTravelDocumentNumbers: [String]? = nil, custodyInformation: String? = nil
        ) {
            self.fullName = fullName
            self.otherNames = otherNames
            self.personalNumber = personalNumber
            self.fullDateOfBirth = fullDateOfBirth
            self.placeOfBirth = placeOfBirth
            self.address = address
            self.telephone = telephone
            self.profession = profession
            self.title = title
            self.personalSummary = personalSummary
            self.proofOfCitizenship = proofOfCitizenship
            self.otherValidTravelDocumentNumbers = otherValidTravelDocumentNumbers
            self.custodyInformation = custodyInformation
        }
    }

    /// DG12, additional document details (ICAO 9303-10 §4.7.12).
    public struct AdditionalDocumentDetails: Codable, Sendable, Hashable {
        public var issuingAuthority: String?
        public var dateOfIssue: DateValue?
        public var otherPersons: [Name]
        public var endorsementsAndObservations: String?
        public var taxOrExitRequirements: String?
        public var imageOfFront: ImageInfo?
        public var imageOfRear: ImageInfo?
        public var personalizationTime: DateValue?
        public var personalizationDeviceSerialNumber: String?
        public init(
            issuingAuthority: String? = nil, dateOfIssue: DateValue? = nil, otherPersons: [Name] = [],
            endorsementsAndObservations: String? = nil, taxOrExitRequirements: String? = nil,
            imageOfFront: ImageInfo? = nil,
            imageOfRear: ImageInfo? = nil, personalizationTime: DateValue? = nil,
            personalizationDeviceSerialNumber: String? = nil
        ) {
            self.issuingAuthority = issuingAuthority
            self.dateOfIssue = dateOfIssue
            self.otherPersons = otherPersons
            self.endorsementsAndObservations = endorsementsAndObservations
            self.taxOrExitRequirements = taxOrExitRequirements
            self.imageOfFront = imageOfFront
            self.imageOfRear = imageOfRear
            self.personalizationTime = personalizationTime
            self.personalizationDeviceSerialNumber = personalizationDeviceSerialNumber
        }
    }

    /// One template of DG16, person(s) to notify (ICAO 9303-10 §4.7.16).
    public struct PersonToNotify: Codable, Sendable, Hashable {
        public var dateRecorded: DateValue?
        public var name: Name?
        public var telephone: String?
        /// The '<'-separated parts.
        public var address: [String]?
        public init(
            dateRecorded: DateValue? = nil, name: Name? = nil, telephone: String? = nil, address: [String]? = nil
        ) {
            self.dateRecorded = dateRecorded
            self.name = name
            self.telephone = telephone
            self.address = address
        }
    }
}

extension ReportBuilder {
    /// Adds the parsed DG5, DG7, DG11, DG12 and DG16 to `document`; a data group that was read but does not
    /// parse, or whose declared count differs from what it holds, becomes a warning (no personal data in it).
    public static func addPersonalData(
        _ doc: inout ReadReport.Document, from lds: LDSDocument, warnings: inout [String]
    ) {
        for f in [LDSFile.dg5, .dg7, .dg11, .dg12, .dg16] {
            if let e = lds.errors[f] { warnings.append("\(f.rawValue) could not be parsed: \(e)") }
        }
        func counted(_ f: LDSFile, _ declared: Int?, _ present: Int, _ what: String) {
            if let declared, declared != present {
                warnings.append("\(f.rawValue) declares \(declared) \(what), holds \(present)")
            }
        }
        if let g = lds.dg11 {
            counted(.dg11, g.otherNamesDeclaredCount, g.otherNames.count, "other names")
            doc.additionalPersonalDetails = ReadReport.AdditionalPersonalDetails(
                fullName: g.fullName.map(name), otherNames: g.otherNames.map(name),
                personalNumber: g.personalNumber.map(text),
                fullDateOfBirth: g.fullDateOfBirth.map(date), placeOfBirth: g.placeOfBirth.map(LDSFields.parts),
                address: g.address.map(LDSFields.parts), telephone: g.telephone.map(text),
                profession: g.profession.map(text),
                title: g.title.map(text), personalSummary: g.personalSummary.map(text),
                proofOfCitizenship: g.proofOfCitizenship.map(image),
                otherValidTravelDocumentNumbers: g.otherValidTravelDocumentNumbers.map(LDSFields.parts),
                custodyInformation: g.custodyInformation.map(text))
        }
        if let g = lds.dg12 {
            counted(.dg12, g.otherPersonsDeclaredCount, g.otherPersons.count, "other persons")
            doc.additionalDocumentDetails = ReadReport.AdditionalDocumentDetails(
                issuingAuthority: g.issuingAuthority.map(text), dateOfIssue: g.dateOfIssue.map(date),
                otherPersons: g.otherPersons.map(name),
                endorsementsAndObservations: g.endorsementsAndObservations.map(text),
                taxOrExitRequirements: g.taxOrExitRequirements.map(text),
                imageOfFront: g.imageOfFront.map(image), imageOfRear: g.imageOfRear.map(image),
                personalizationTime: g.personalizationTime.map(date),
                personalizationDeviceSerialNumber: g.personalizationDeviceSerialNumber.map(text))
        }
        if let g = lds.dg16 {
            counted(.dg16, g.declaredCount, g.persons.count, "persons to notify")
            doc.personsToNotify = g.persons.map {
                ReadReport.PersonToNotify(
                    dateRecorded: $0.dateRecorded.map(date), name: $0.name.map(name),
                    telephone: $0.telephone.map(text), address: $0.address.map(LDSFields.parts))
            }
        }
        for (f, keyPath) in [(LDSFile.dg5, \ReadReport.Document.displayedPortraits), (.dg7, \.displayedSignatures)] {
            guard case .displayedImage(let g)? = lds.contents[f] else { continue }
            counted(f, g.declaredCount, g.images.count, "images")
            doc[keyPath: keyPath] = g.images.map { image($0.data) }
        }
    }

    static func name(_ raw: String) -> ReadReport.Name {
        let n = LDSFields.name(raw)
        return ReadReport.Name(primary: n.primary, secondary: n.secondary)
    }

    static func text(_ raw: String) -> String { LDSFields.readable(raw) }

    static func date(_ raw: String) -> ReadReport.DateValue {
        if let iso = LDSFields.iso8601(raw) { return ReadReport.DateValue(value: iso, format: "iso8601") }
        return ReadReport.DateValue(value: raw, format: "raw")
    }

    static func image(_ bytes: [UInt8]) -> ReadReport.ImageInfo {
        let size = ImageFormat.dimensions(bytes)
        return ReadReport.ImageInfo(
            format: ImageFormat.detect(bytes).rawValue, width: size?.width, height: size?.height,
            size: bytes.count, sha256: Hex.encode(HashAlgorithm.sha256.hash(bytes)))
    }
}
