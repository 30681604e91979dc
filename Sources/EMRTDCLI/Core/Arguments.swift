/// A hand-written command-line option parser (no third-party packages): `--name VALUE`, `--name=VALUE`,
/// boolean flags, repeated options, positionals. Every problem is a `UsageError` with one line naming it.
public struct UsageError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

public struct ParsedArguments: Sendable {
    public var values: [String: [String]] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []

    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }
}

public struct OptionSpec: Sendable {
    /// Options taking a value (without the leading dashes).
    public var valued: Set<String>
    /// Boolean flags.
    public var flags: Set<String>
    /// How many positionals are allowed.
    public var maxPositionals: Int

    public init(valued: Set<String> = [], flags: Set<String> = [], maxPositionals: Int = 0) {
        self.valued = valued
        self.flags = flags.union(["help", "h"])
        self.maxPositionals = maxPositionals
    }

    public func parse(_ args: [String]) throws(UsageError) -> ParsedArguments {
        var out = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositionals || !a.hasPrefix("-") || a == "-" {
                guard out.positionals.count < maxPositionals else {
                    throw UsageError("unexpected argument '\(a)'")
                }
                out.positionals.append(a)
                continue
            }
            if a == "--" { onlyPositionals = true; continue }
            var name = String(a.drop { $0 == "-" })
            var inline: String? = nil
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if flags.contains(name) {
                guard inline == nil else { throw UsageError("option --\(name) takes no value") }
                out.flags.insert(name == "h" ? "help" : name)
            } else if valued.contains(name) {
                let v: String
                if let inline { v = inline } else {
                    guard i < args.count else { throw UsageError("option --\(name) needs a value") }
                    v = args[i]
                    i += 1
                }
                out.values[name, default: []].append(v)
            } else {
                throw UsageError("unknown option '\(a)'")
            }
        }
        return out
    }
}
