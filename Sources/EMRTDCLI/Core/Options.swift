/// Option declarations shared by several commands (docs/cli.md).
enum Options {
    static let json = OptionDecl("json", help: "print one JSON object on stdout instead of text (also on failure)")
    static let quiet = OptionDecl("quiet", help: "no progress lines or notes on stderr")

    /// ACCESS: the MRZ, its three key fields, or the CAN. All secret; `-` reads the value from standard input.
    static let access: [OptionDecl] = [
        OptionDecl(
            "mrz", value: "MRZ",
            help: "the whole MRZ as scanned (TD1, TD2 or TD3), as one argument; - reads it from standard input",
            secret: true, conflicts: ["document-number", "birth-date", "expiry-date", "can", "mrz-image"]),
        OptionDecl(
            "mrz-image", value: "IMAGE", kind: .file,
            help: "read the MRZ from a photo or scan of the data page (JPEG, PNG or PGM); it is never printed",
            conflicts: ["document-number", "birth-date", "expiry-date", "can"]),
        OptionDecl(
            "document-number", value: "NUMBER", help: "the document number (with --birth-date and --expiry-date)",
            secret: true, conflicts: ["can"]),
        OptionDecl(
            "birth-date", value: "YYMMDD", help: "the date of birth as on the MRZ", secret: true, conflicts: ["can"]),
        OptionDecl(
            "expiry-date", value: "YYMMDD", help: "the date of expiry as on the MRZ", secret: true, conflicts: ["can"]),
        OptionDecl(
            "can", value: "CAN", help: "the 6-digit card access number; - reads it from standard input", secret: true),
    ]

    static let trust: [OptionDecl] = [
        OptionDecl(
            "trust", value: "PATH", kind: .path,
            help: "CSCA certificate (DER/PEM), folder of them, ICAO master list (.ml) or CRL", repeatable: true),
        OptionDecl(
            "ml-signer-root", value: "FILE", kind: .file,
            help: "pinned root for master-list signatures (a master list is refused without one)", repeatable: true),
    ]

    /// The expiry opt-in of `read`, `demo` and `verify` (docs/report.md "Verdict").
    static let allowExpired = OptionDecl(
        "allow-expired",
        help:
            "accept a document past its date of expiry (the report records it); without it an expired document is inconclusive"
    )

    static let out = OptionDecl(
        "out", value: "DIR", kind: .directory,
        help: "write the evidence bundle into DIR (new or empty; files readable by you only)")
    static let trace = OptionDecl(
        "trace", value: "FILE", kind: .file,
        help: "write a redacted APDU trace (headers, lengths, status words, times; never data)")

    /// A card wait (`--timeout` of `read`, `--card-timeout` of `stepup run`): seconds above 0, at most an hour.
    static func cardWait(_ name: String) -> NumberRule {
        .seconds(upTo: 3600, message: "--\(name) must be a number of seconds above 0 and at most 3600")
    }

    /// The reader options of `read` (also taken by `stepup run` for its chip read).
    static let reader: [OptionDecl] = [
        OptionDecl(
            "reader", value: "NAME", help: "reader name or a unique part of it",
            default: "the first reader with a card, else the first reader"),
        OptionDecl(
            "virtual", value: "PROFILE|DIR", kind: .path,
            help:
                "read a built-in virtual document (see demo --list-profiles) or a saved profile folder in process, instead of a reader",
            conflicts: ["reader"]),
        OptionDecl(
            "profiles", value: "FILE", kind: .file,
            help: "reader profiles (schema emrtd.readers/1) instead of the built-in copy of hardware/readers.json"),
        OptionDecl(
            "files", value: "LIST", help: "files to read, separated by commas or spaces, e.g. DG1,DG2,DG15",
            default: "every file the SOD lists"),
        OptionDecl(
            "allow-bac-fallback",
            help:
                "accept a downgrade: BAC although the chip lists PACE, or a weaker PACE than its signed DG14 lists; recorded in the report",
            default: "off: BAC still runs when PACE cannot, and a downgrade makes the verdict inconclusive",
            conflicts: ["no-bac-fallback"]),
        OptionDecl(
            "no-bac-fallback",
            help: "never use BAC (PACE-only kiosks): a BAC-only chip, or one offering no usable PACE, is not read"),
        OptionDecl(
            "aa-challenge", value: "HEX",
            help: "the 8-byte Active Authentication challenge (bind the read to a backend nonce); needs DG15"),
        OptionDecl(
            "timeout", value: "SECONDS", help: "how long to wait for a card, and for it to be presented again",
            default: "30", number: cardWait("timeout")),
        out, trace, HTMLOutput.option,
    ]
}
