/// The declarative command-line model of `emrtd` (docs/cli.md): every command and option is one declaration,
/// from which the parser, `emrtd help CMD`, `emrtd CMD --help`, the synopsis (and the README's command block),
/// shell completion and the man page are generated. No third-party packages.

/// What an option's value is, for validation messages and shell completion.
public enum ValueKind: Sendable, Equatable {
    case text
    case number
    case file
    case directory
    /// A file or a folder.
    case path
    /// One of a fixed set of words.
    case choice([String])
}

/// What a number option's value must be, checked when the command line is parsed: the command reads the checked
/// value with `ParsedArguments.number(_:)`, and a value out of its rule is a usage error naming the option before
/// anything runs.
public struct NumberRule: Sendable {
    public var range: ClosedRange<Double>
    /// The lower bound itself is refused (a time that must be above 0).
    public var aboveLowerBound: Bool
    public var whole: Bool
    /// The error message, naming the option and the rule, never the value given.
    public var message: String

    public init(_ range: ClosedRange<Double>, aboveLowerBound: Bool = false, whole: Bool = false, message: String) {
        self.range = range
        self.aboveLowerBound = aboveLowerBound
        self.whole = whole
        self.message = message
    }

    /// A number of seconds above 0 and at most `max`.
    public static func seconds(upTo max: Double, message: String) -> NumberRule {
        NumberRule(0...max, aboveLowerBound: true, message: message)
    }

    /// `word` as a number that keeps the rule, else nil.
    public func value(_ word: String) -> Double? {
        guard let d = Double(word), d.isFinite, range.contains(d), !aboveLowerBound || d != range.lowerBound,
            !whole || d == d.rounded()
        else { return nil }
        return d
    }
}

/// One option: `--name VALUE` / `--name=VALUE`, or a flag `--name`.
public struct OptionDecl: Sendable {
    public var name: String
    public var short: Character?
    /// The value's placeholder in help texts (`NAME`, `DIR`); nil for a flag.
    public var value: String?
    public var kind: ValueKind
    public var help: String
    /// The default as shown in help texts ("(default: …)"), nil when there is none to state.
    public var defaultText: String?
    public var repeatable: Bool
    /// A value that may be access data or a credential (MRZ, CAN, document number, dates, tokens, context JSON):
    /// never echoed in any message.
    public var secret: Bool
    /// Options that may not be given together with this one.
    public var conflicts: [String]
    /// A number option's rule, checked by the parser (its kind is then `.number`).
    public var number: NumberRule?

    public init(
        _ name: String, short: Character? = nil, value: String? = nil, kind: ValueKind = .text, help: String,
        default defaultText: String? = nil, repeatable: Bool = false, secret: Bool = false,
        conflicts: [String] = [], number: NumberRule? = nil
    ) {
        self.name = name
        self.short = short
        self.value = value
        self.number = value == nil ? nil : number
        self.kind = value == nil ? .text : number == nil ? kind : .number
        self.help = help
        self.defaultText = defaultText
        self.repeatable = repeatable
        self.secret = secret
        self.conflicts = conflicts
    }

    public var isFlag: Bool { value == nil }

    /// `--name VALUE` or `--name`.
    public var usage: String { "--\(name)" + (value.map { " \($0)" } ?? "") }

    /// `-v, --verbose` or `--json`, with the value.
    public var label: String { (short.map { "-\($0), " } ?? "") + usage }
}

/// A positional argument.
public struct ArgumentDecl: Sendable {
    public var name: String
    public var help: String
    public var optional: Bool
    public var secret: Bool
    public var kind: ValueKind

    public init(_ name: String, help: String, optional: Bool = false, secret: Bool = false, kind: ValueKind = .text) {
        self.name = name
        self.help = help
        self.optional = optional
        self.secret = secret
        self.kind = kind
    }
}

/// What a command gets when it runs.
public struct Invocation: Sendable {
    /// The full command path, e.g. "read" or "stepup run".
    public var command: String
    public var arguments: ParsedArguments
    /// The environment, the output streams and the outside seams the command runs with.
    public var context: CommandContext
    public var environment: [String: String] { context.environment }
}

/// One command (or subcommand): its declaration and the function that runs it.
public struct CommandDecl: Sendable {
    public typealias Run = @Sendable (Invocation) async throws -> Int32

    public var name: String
    public var summary: String
    /// Paragraphs printed after the usage line.
    public var discussion: String
    public var arguments: [ArgumentDecl]
    public var options: [OptionDecl]
    public var subcommands: [CommandDecl]
    /// The schema of the command's JSON output (named in help texts and in JSON error objects).
    public var schema: String?
    /// The command prints JSON on stdout whether or not `--json` is given (the step-up commands).
    public var alwaysJSON: Bool
    /// Exit statuses this command can end with (from `ExitStatus`), for its help text.
    public var exits: [ExitStatus]
    /// Option names refused with a reason (e.g. credentials, which come from the environment only).
    public var refused: [String: String]
    public var run: Run?

    public init(
        _ name: String, summary: String, discussion: String = "", arguments: [ArgumentDecl] = [],
        options: [OptionDecl] = [], subcommands: [CommandDecl] = [], schema: String? = nil,
        alwaysJSON: Bool = false, exits: [ExitStatus] = [.ok, .usage], refused: [String: String] = [:],
        run: Run? = nil
    ) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.schema = schema
        self.alwaysJSON = alwaysJSON
        self.exits = exits
        self.refused = refused
        self.run = run
    }

    /// The options plus the implicit `-h, --help`.
    public var allOptions: [OptionDecl] { options + [OptionDecl.help] }

    public func option(_ name: String) -> OptionDecl? { allOptions.first { $0.name == name } }
}

extension OptionDecl {
    static let help = OptionDecl("help", short: "h", help: "show this help")
}

/// The options and positionals of one invocation, after parsing.
public struct ParsedArguments: Sendable {
    public var values: [String: [String]] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []
    /// The values of number options, checked against their `NumberRule` (the last one given).
    public var numbers: [String: Double] = [:]
    /// Every option as given, in order (name, value), to hand a subset on unchanged.
    public var given: [(name: String, value: String?)] = []

    public init() {}

    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }
    public func flag(_ name: String) -> Bool { flags.contains(name) }
    /// A number option's value, as its rule checked it at parse time; nil when the option is not given.
    public func number(_ name: String) -> Double? { numbers[name] }
    public func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }

    /// The options of `names` again as words (`--name value`), in the order given.
    public func words(for names: Set<String>) -> [String] {
        given.filter { names.contains($0.name) }.flatMap { g in ["--\(g.name)"] + (g.value.map { [$0] } ?? []) }
    }
}

/// A problem with the command line: exit status 2, one line naming the problem (never a secret value).
public struct UsageError: Error, CustomStringConvertible, Sendable {
    public var code: ErrorCode
    public var message: String
    public init(_ message: String, code: ErrorCode = .badValue) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}

extension CommandDecl {
    /// Parses `args` (the words after the command name) against the declaration. Never echoes a word that
    /// is not an option name of this command: an unexpected word may be access data typed in the wrong place.
    public func parse(_ args: [String]) throws(UsageError) -> ParsedArguments {
        var out = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        /// The option word before the current one, to place an unexpected word without quoting it.
        var previous: OptionDecl? = nil
        let maxPositionals = arguments.count
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositionals || !a.hasPrefix("-") || a == "-" {
                guard out.positionals.count < maxPositionals else {
                    throw UsageError(
                        Self.extraArgumentMessage(after: previous, positionals: arguments), code: .extraArgument)
                }
                out.positionals.append(a)
                continue
            }
            if a == "--" {
                onlyPositionals = true
                continue
            }
            var word = a
            var inline: String? = nil
            if let eq = word.firstIndex(of: "=") {
                inline = String(word[word.index(after: eq)...])
                word = String(word[..<eq])
            }
            let decl: OptionDecl?
            if word.hasPrefix("--") {
                let name = String(word.dropFirst(2))
                decl = allOptions.first { $0.name == name }
            } else if word.count == 2, let c = word.last {
                decl = allOptions.first { $0.short == c }
            } else {
                decl = nil
            }
            if word.hasPrefix("--"), let why = refused[String(word.dropFirst(2))] {
                throw UsageError("\(word) is refused: \(why)", code: .unknownOption)
            }
            guard let decl else { throw unknownOption(word) }
            if decl.isFlag {
                guard inline == nil else {
                    throw UsageError("--\(decl.name) takes no value", code: .unexpectedValue)
                }
                out.flags.insert(decl.name)
                out.given.append((decl.name, nil))
            } else {
                let v: String
                if let inline {
                    v = inline
                } else {
                    guard i < args.count else {
                        throw UsageError("--\(decl.name) needs a value (\(decl.value ?? "VALUE"))", code: .missingValue)
                    }
                    v = args[i]
                    i += 1
                }
                if !decl.repeatable, out.values[decl.name] != nil {
                    throw UsageError("--\(decl.name) is given twice (it takes one value)", code: .repeatedOption)
                }
                out.values[decl.name, default: []].append(v)
                out.given.append((decl.name, v))
            }
            previous = decl
        }
        if out.flag("help") { return out }
        for o in options where out.has(o.name) {
            for c in o.conflicts where out.has(c) {
                throw UsageError("--\(o.name) and --\(c) cannot be used together", code: .conflictingOptions)
            }
        }
        for o in options {
            guard let rule = o.number else { continue }
            for word in out.all(o.name) {
                guard let v = rule.value(word) else { throw UsageError(rule.message, code: .badValue) }
                out.numbers[o.name] = v
            }
        }
        return out
    }

    static func extraArgumentMessage(after previous: OptionDecl?, positionals: [ArgumentDecl]) -> String {
        var m = "an extra argument"
        if let p = previous {
            m += " after --\(p.name)"
            if p.name == "mrz" {
                m += " (give the whole MRZ as one argument in quotes, or --mrz - to read it from standard input)"
            } else if p.isFlag {
                m += " (it takes no value)"
            } else {
                m += " (it takes one value; quote a value that holds spaces)"
            }
        } else if positionals.isEmpty {
            m += " (this command takes no arguments besides its options)"
        } else {
            m += " (this command takes \(positionals.map(\.name).joined(separator: " ")) and options)"
        }
        return m
    }

    func unknownOption(_ word: String) -> UsageError {
        // Echo the word only when it looks like an option name (lowercase letters, digits, dashes), never a value.
        let name = String(word.drop { $0 == "-" })
        let looksLikeName = word.hasPrefix("-") && Shown.isSafeName(name)
        var m = looksLikeName ? "unknown option '\(word)'" : "an unknown option-like argument"
        if looksLikeName, let s = Suggest.closest(name, among: allOptions.map(\.name)) {
            m += " — did you mean --\(s)?"
        }
        return UsageError(m, code: .unknownOption)
    }
}
