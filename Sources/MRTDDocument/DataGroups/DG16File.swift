import ASN1TLV

/// DG16, person(s) to notify (ICAO 9303-10 §4.7.16):
/// `70 { 02 number of templates, A1 { 5F50 date data recorded, 5F51 name, 5F52 telephone, 5F53 address }, A2 {…} … }`.
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
        let count = try r.require(root, 0x02, "number of templates")
        guard (1...2).contains(count.value.count) else { throw r.error(.invalidValue, count, "bad number of templates") }
        declaredCount = count.value.reduce(0) { $0 << 8 | Int($1) }
        var persons: [Person] = []
        for t in root.children where t.tagClass == .contextSpecific && t.isConstructed {
            func text(_ tag: UInt32) throws(LDSParseError) -> String? {
                try t.child(tag).map { n throws(LDSParseError) in try r.text(n) }
            }
            persons.append(Person(dateRecorded: try t.child(0x5F50).map { n throws(LDSParseError) in try LDSFields.date(n, reader: r) },
                                  name: try text(0x5F51), telephone: try text(0x5F52), address: try text(0x5F53)))
        }
        self.persons = persons
    }
}
