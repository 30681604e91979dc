/// The personal data groups of a report as a person reads them: labelled rows in sections, shared by the
/// text output and the HTML report so that both show the same fields with the same labels.
public struct PersonalDataSection: Sendable, Hashable {
    public struct Row: Sendable, Hashable {
        public let label: String
        public let value: String
        /// The ICAO tag the value comes from ("5F0E"), for a reader who wants to check against the spec.
        public let tag: String
    }

    public let title: String
    public let rows: [Row]

    /// The sections present in `d`, in data-group order: DG5, DG7, DG11, DG12, DG16.
    public static func sections(of d: ReadReport.Document) -> [PersonalDataSection] {
        var out: [PersonalDataSection] = []
        func images(_ list: [ReadReport.ImageInfo]?, _ title: String, _ tag: String) {
            guard let list, !list.isEmpty else { return }
            out.append(
                PersonalDataSection(
                    title: title,
                    rows: list.enumerated().map {
                        Row(
                            label: list.count > 1 ? "Image \($0.offset + 1)" : "Image", value: describe($0.element),
                            tag: tag)
                    }))
        }
        images(d.displayedPortraits, "Displayed portrait (DG5)", "5F40")
        images(d.displayedSignatures, "Displayed signature or usual mark (DG7)", "5F43")
        if let p = d.additionalPersonalDetails {
            var rows: [Row] = []
            func add(_ label: String, _ tag: String, _ value: String?) {
                if let value { rows.append(Row(label: label, value: value, tag: tag)) }
            }
            add("Full name", "5F0E", p.fullName.map(describe))
            for n in p.otherNames { add("Other name", "5F0F", describe(n)) }
            add("Personal number", "5F10", p.personalNumber)
            add("Full date of birth", "5F2B", p.fullDateOfBirth.map(describe))
            add("Place of birth", "5F11", p.placeOfBirth.map { $0.joined(separator: ", ") })
            add("Address", "5F42", p.address.map { $0.joined(separator: ", ") })
            add("Telephone", "5F12", p.telephone)
            add("Profession", "5F13", p.profession)
            add("Title", "5F14", p.title)
            add("Personal summary", "5F15", p.personalSummary)
            add("Proof of citizenship", "5F16", p.proofOfCitizenship.map(describe))
            add(
                "Other valid travel documents", "5F17",
                p.otherValidTravelDocumentNumbers.map { $0.joined(separator: ", ") })
            add("Custody information", "5F18", p.custodyInformation)
            out.append(PersonalDataSection(title: "Additional personal details (DG11)", rows: rows))
        }
        if let p = d.additionalDocumentDetails {
            var rows: [Row] = []
            func add(_ label: String, _ tag: String, _ value: String?) {
                if let value { rows.append(Row(label: label, value: value, tag: tag)) }
            }
            add("Issuing authority", "5F19", p.issuingAuthority)
            add("Date of issue", "5F26", p.dateOfIssue.map(describe))
            for n in p.otherPersons { add("Other person", "5F1A", describe(n)) }
            add("Endorsements and observations", "5F1B", p.endorsementsAndObservations)
            add("Tax or exit requirements", "5F1C", p.taxOrExitRequirements)
            add("Image of the front", "5F1D", p.imageOfFront.map(describe))
            add("Image of the rear", "5F1E", p.imageOfRear.map(describe))
            add("Personalization time", "5F55", p.personalizationTime.map(describe))
            add("Personalization device", "5F56", p.personalizationDeviceSerialNumber)
            out.append(PersonalDataSection(title: "Additional document details (DG12)", rows: rows))
        }
        if let persons = d.personsToNotify, !persons.isEmpty {
            var rows: [Row] = []
            for (i, p) in persons.enumerated() {
                let n = persons.count > 1 ? " \(i + 1)" : ""
                if let v = p.name { rows.append(Row(label: "Person\(n)", value: describe(v), tag: "5F51")) }
                if let v = p.telephone { rows.append(Row(label: "Telephone\(n)", value: v, tag: "5F52")) }
                if let v = p.address {
                    rows.append(Row(label: "Address\(n)", value: v.joined(separator: ", "), tag: "5F53"))
                }
                if let v = p.dateRecorded { rows.append(Row(label: "Recorded\(n)", value: describe(v), tag: "5F50")) }
            }
            out.append(PersonalDataSection(title: "Persons to notify (DG16)", rows: rows))
        }
        return out
    }

    static func describe(_ n: ReadReport.Name) -> String {
        n.secondary.isEmpty ? n.primary : "\(n.primary), \(n.secondary)"
    }

    /// An ISO 8601 value as is; any other as stored, saying so.
    static func describe(_ d: ReadReport.DateValue) -> String {
        d.format == "iso8601" ? d.value : "\(d.value) (as stored)"
    }

    static func describe(_ i: ReadReport.ImageInfo) -> String {
        let kind = ["jpeg": "JPEG", "jpeg2000": "JPEG 2000", "png": "PNG"][i.format] ?? "image of unknown format"
        let size = i.width.flatMap { w in i.height.map { "\(w)×\($0), " } } ?? ""
        return "\(kind), \(size)\(i.size) bytes"
    }
}
