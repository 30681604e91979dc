public import ISO7816

/// The capabilities of a reader path and how they were learnt: from the driver's PC/SC
/// properties (live), from a reader profile (curated), both, or neither (then `isKnown` is false
/// and the reader module probes with a safe extended-length APDU first).
public struct ReaderCapabilityReport: Hashable, Sendable {
    public var readerName: String
    public var capabilities: TransportCapabilities
    public var properties: ReaderProperties
    public var profile: ReaderProfile?
    /// Human-readable notes on each decision (which source said what).
    public var notes: [String]

    public init(readerName: String, properties: ReaderProperties, profile: ReaderProfile?) {
        self.readerName = readerName
        self.properties = properties
        self.profile = profile
        (self.capabilities, self.notes) = Self.combine(properties: properties, profile: profile)
    }

    /// Where the capabilities come from: "reader", "profile", "reader+profile" or "unknown".
    public var source: String {
        let fromReader = properties.maxAPDUDataSize != nil
        let fromProfile = profile?.extendedLength != nil
        switch (fromReader, fromProfile) {
        case (true, true): return "reader+profile"
        case (true, false): return "reader"
        case (false, true): return "profile"
        case (false, false): return "unknown"
        }
    }

    /// Combines the two sources:
    /// - the driver's `dwMaxAPDUDataSize` (PC/SC part 10): 0 = short APDUs only; n > 0 = extended
    ///   APDUs with up to n data bytes each way;
    /// - the profile: `extendedLength` false is a known quirk and wins (short APDUs only); otherwise
    ///   its sizes cap the driver's;
    /// - when the driver reports short only, the profile cannot widen it (the driver would refuse);
    /// - neither: `isKnown` false, short-APDU sizes (safe), so the reader module probes.
    public static func combine(properties: ReaderProperties, profile: ReaderProfile?) -> (
        TransportCapabilities, [String]
    ) {
        var notes: [String] = []
        var fromReader: TransportCapabilities? = nil
        if let d = properties.maxAPDUDataSize {
            if d == 0 {
                fromReader = .shortOnly
                notes.append("driver: dwMaxAPDUDataSize 0 (short APDUs only)")
            } else {
                let data = Int(min(d, 65536))
                fromReader = TransportCapabilities(
                    supportsExtendedLength: true,
                    maxCommandSize: min(65544, 4 + 3 + min(data, 65535) + 2),
                    maxResponseSize: min(65538, data + 2))
                notes.append("driver: dwMaxAPDUDataSize \(d) (extended APDUs)")
            }
        } else if properties.isEmpty {
            notes.append("driver: no PC/SC part 10 properties")
        } else {
            notes.append("driver: no dwMaxAPDUDataSize property")
        }
        if let m = properties.maxInput { notes.append("driver: SCARD_ATTR_MAXINPUT \(m)") }

        var fromProfile: TransportCapabilities? = nil
        if let profile {
            notes.append("profile: \(profile.id) (\(profile.status))")
            if let ext = profile.extendedLength {
                let base: TransportCapabilities = ext ? .extended : .shortOnly
                fromProfile = TransportCapabilities(
                    supportsExtendedLength: ext,
                    maxCommandSize: profile.maxCommandSize ?? base.maxCommandSize,
                    maxResponseSize: profile.maxResponseSize ?? base.maxResponseSize)
            }
        }

        switch (fromReader, fromProfile) {
        case (let r?, let p?):
            if !p.supportsExtendedLength {
                if r.supportsExtendedLength {
                    notes.append("profile overrides the driver: short APDUs only (known quirk)")
                }
                return (p, notes)
            }
            if !r.supportsExtendedLength {
                notes.append("driver reports short APDUs only; the profile's extended length is not used")
                return (r, notes)
            }
            return (
                TransportCapabilities(
                    supportsExtendedLength: true,
                    maxCommandSize: min(r.maxCommandSize, p.maxCommandSize),
                    maxResponseSize: min(r.maxResponseSize, p.maxResponseSize)), notes
            )
        case (let r?, nil):
            return (r, notes)
        case (nil, let p?):
            return (p, notes)
        case (nil, nil):
            notes.append("extended-length support unknown: probe")
            var c = TransportCapabilities.shortOnly
            c.isKnown = false
            return (c, notes)
        }
    }
}
