import ASN1TLV

/// DG16, person(s) to notify (ICAO 9303-10 §4.7.16):
/// `70 { 02 number of templates, A1 { 5F50 date data recorded, 5F51 name, 5F52 telephone, 5F53 address }, A2 {…} … }`.
/// Name as in 9303-3 (primary '<<' secondary), address fields separated by '<'. Bounded: a declared count in
/// 1…99 and at most `LDSFields.maxEntries` templates; a count that differs from the templates present is kept
/// in `declaredCount` for the caller to flag.
public struct DG16File: Sendable, Hashable {
    public struct Person: Sendable, Hashable {
        /// YYYYMMDD.
        public let dateRecorded: String?
        public let name: String?
        public let telephone: String?
        public let address: String?
    }

    public let raw: [UInt8]
    public let declaredCount: Int
    public let persons: [Person]

    public init(bytes: [UInt8]) throws(LDSParseError) {
        let r = LDSReader(file: .dg16)
        raw = bytes
        let root = try r.parseFile(bytes, tag: 0x70)
        declaredCount = try LDSFields.count(try r.require(root, 0x02, "number of templates"), reader: r, "templates")
        let templates = root.children.filter { $0.tagClass == .contextSpecific && $0.isConstructed }
        guard templates.count <= LDSFields.maxEntries else {
            throw r.error(
                .invalidValue, root,
                "\(templates.count) persons to notify present, at most \(LDSFields.maxEntries) accepted")
        }
        var persons: [Person] = []
        for t in templates {
            func text(_ tag: UInt32) throws(LDSParseError) -> String? {
                try t.child(tag).map { n throws(LDSParseError) in try r.text(n) }
            }
            persons.append(
                Person(
                    dateRecorded: try t.child(0x5F50).map { n throws(LDSParseError) in try LDSFields.date(n, reader: r)
                    },
                    name: try text(0x5F51), telephone: try text(0x5F52), address: try text(0x5F53)))
        }
        self.persons = persons
    }
}
