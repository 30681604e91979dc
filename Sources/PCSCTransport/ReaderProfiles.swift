public import Foundation

/// A reader profile of `hardware/readers.json` (schema "emrtd.readers/1"): what is known about a
/// reader model — whether it carries extended-length APDUs, its limits, quirks and their
/// workarounds — and where that knowledge comes from.
public struct ReaderProfile: Codable, Hashable, Sendable {
    public struct Quirk: Codable, Hashable, Sendable {
        public var id: String
        public var description: String
        public var workaround: String?
        public init(id: String, description: String, workaround: String?) {
            self.id = id
            self.description = description
            self.workaround = workaround
        }
    }

    public struct Source: Codable, Hashable, Sendable {
        public var title: String
        public var url: String
        public init(title: String, url: String) {
            self.title = title
            self.url = url
        }
    }

    /// A stable identifier, e.g. "acs-acr1252u".
    public var id: String
    public var vendor: String
    public var model: String
    /// Glob patterns (`*` any run, `?` one character; case-insensitive) matched against the whole
    /// PC/SC reader name, e.g. "ACS ACR1252*PICC*".
    public var match: [String]
    /// Whether the reader path carries extended-length APDUs; nil: unknown.
    public var extendedLength: Bool?
    /// Largest command APDU (bytes, header included); nil: unknown.
    public var maxCommandSize: Int?
    /// Largest response APDU (bytes, SW included); nil: unknown.
    public var maxResponseSize: Int?
    public var quirks: [Quirk]
    public var sources: [Source]
    /// "untested" until someone has read a document with it and recorded that here; then "tested".
    public var status: String
    /// What the test used (firmware, driver version, date), when tested.
    public var testedWith: String?
    public var notes: String?

    public init(
        id: String, vendor: String, model: String, match: [String], extendedLength: Bool?,
        maxCommandSize: Int?, maxResponseSize: Int?, quirks: [Quirk], sources: [Source],
        status: String, testedWith: String?, notes: String?
    ) {
        self.id = id
        self.vendor = vendor
        self.model = model
        self.match = match
        self.extendedLength = extendedLength
        self.maxCommandSize = maxCommandSize
        self.maxResponseSize = maxResponseSize
        self.quirks = quirks
        self.sources = sources
        self.status = status
        self.testedWith = testedWith
        self.notes = notes
    }

    public var isTested: Bool { status == "tested" }

    /// Whether `readerName` matches one of the patterns.
    public func matches(_ readerName: String) -> Bool {
        match.contains { ReaderProfiles.glob($0, matches: readerName) }
    }
}

/// Error loading reader profiles.
public struct ReaderProfilesError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String?
    public var reason: String
    public var description: String { "reader profiles\(path.map { " \($0)" } ?? ""): \(reason)" }
}

/// The reader profiles, matched on the PC/SC reader name (first match wins, so more specific
/// entries come first in the file).
///
/// The binary carries `Resources/readers.json` (`ReaderProfiles.builtIn`, embedded by SwiftPM as a resource;
/// `hardware/readers.json` is a link to it), so an installed `emrtd` works without the repository;
/// `load(path:)` reads another file (e.g. a site's own).
public struct ReaderProfiles: Hashable, Sendable {
    public var schema: String
    public var profiles: [ReaderProfile]

    private struct File: Codable {
        var schema: String
        var readers: [ReaderProfile]
    }

    public static let schemaName = "emrtd.readers/1"

    public init(profiles: [ReaderProfile]) {
        self.schema = Self.schemaName
        self.profiles = profiles
    }

    /// Parses the JSON text of a readers file.
    public init(json: Data, path: String? = nil) throws(ReaderProfilesError) {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: json)
        } catch {
            throw ReaderProfilesError(path: path, reason: "not a valid readers file: \(error)")
        }
        guard file.schema == Self.schemaName else {
            throw ReaderProfilesError(
                path: path, reason: "schema is \"\(file.schema)\", expected \"\(Self.schemaName)\"")
        }
        var ids = Set<String>()
        for p in file.readers {
            guard ids.insert(p.id).inserted else {
                throw ReaderProfilesError(path: path, reason: "duplicate profile id \(p.id)")
            }
            guard !p.match.isEmpty else {
                throw ReaderProfilesError(path: path, reason: "profile \(p.id) has no match pattern")
            }
            guard !p.sources.isEmpty else {
                throw ReaderProfilesError(path: path, reason: "profile \(p.id) cites no source")
            }
            guard p.status == "tested" || p.status == "untested" else {
                throw ReaderProfilesError(
                    path: path, reason: "profile \(p.id) status must be \"tested\" or \"untested\"")
            }
            if let c = p.maxCommandSize, c < 5 || c > 65544 {
                throw ReaderProfilesError(path: path, reason: "profile \(p.id) maxCommandSize \(c) outside 5...65544")
            }
            if let r = p.maxResponseSize, r < 2 || r > 65538 {
                throw ReaderProfilesError(path: path, reason: "profile \(p.id) maxResponseSize \(r) outside 2...65538")
            }
        }
        self.schema = file.schema
        self.profiles = file.readers
    }

    /// Loads a readers file from `path`.
    public static func load(path: String) throws(ReaderProfilesError) -> ReaderProfiles {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReaderProfilesError(path: path, reason: "cannot read the file")
        }
        return try ReaderProfiles(json: data, path: path)
    }

    /// The JSON text compiled into the binary (`Resources/readers.json`, also reachable as hardware/readers.json).
    public static var builtInJSON: String { String(decoding: PackageResources.readers_json, as: UTF8.self) }

    public static let builtIn: ReaderProfiles = {
        do {
            return try ReaderProfiles(json: Data(PackageResources.readers_json), path: "<built-in>")
        } catch {
            preconditionFailure("the embedded readers.json does not parse: \(error)")
        }
    }()

    /// The first profile whose pattern matches `readerName`.
    public func profile(forReader readerName: String) -> ReaderProfile? {
        profiles.first { $0.matches(readerName) }
    }

    /// Case-insensitive glob match of the whole `name`: `*` matches any run, `?` one character.
    public static func glob(_ pattern: String, matches name: String) -> Bool {
        let p = Array(pattern.lowercased())
        let s = Array(name.lowercased())
        var pi = 0
        var si = 0
        var star = -1
        var mark = 0
        while si < s.count {
            if pi < p.count && (p[pi] == "?" || p[pi] == s[si]) {
                pi += 1
                si += 1
            } else if pi < p.count && p[pi] == "*" {
                star = pi
                mark = si
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                si = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
