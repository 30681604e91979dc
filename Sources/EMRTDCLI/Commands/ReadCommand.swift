import ASN1TLV
import DocumentGenerator
import Foundation
import ISO7816
import MRTDAccessControl
import MRTDDocument
import MRTDReader
import MRTDTrust
import PCSCTransport
import VirtualChip

/// Options shared by `read` and `stepup run`.
enum ReadSetup {
    /// `--files`: names separated by commas and/or spaces (`DG1,DG2`, `"DG1 DG2"`), any case, `EF.` optional.
    static func files(_ text: String?) throws(UsageError) -> Set<LDSFile>? {
        guard let text else { return nil }
        var out = Set<LDSFile>()
        let parts = text.split(whereSeparator: { $0 == "," || $0.isWhitespace })
        for (index, part) in parts.enumerated() {
            guard let f = LDSFile(name: part) else {
                // The name is quoted unless it could be access data typed in the wrong place; its place says which.
                let place = parts.count > 1 ? " (name \(index + 1) of \(parts.count))" : ""
                let plain =
                    part.count <= 24 && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ".") }
                let what =
                    plain && !Shown.couldBeAccessData(part)
                    ? "unknown file '\(part)'\(place)"
                    : "unknown file\(place), not repeated here: it could be access data"
                throw UsageError(
                    "--files: \(what) — use COM, SOD, DG1…DG16, CardAccess, CardSecurity,"
                        + " separated by commas or spaces (e.g. --files DG1,DG2,SOD)",
                    code: .badValue)
            }
            out.insert(f)
        }
        guard !out.isEmpty else { throw UsageError("--files is empty: list files such as DG1,DG2") }
        return out
    }

    static func options(_ a: ParsedArguments, key: AccessKey, timeoutOption: String = "timeout") throws(UsageError)
        -> ReadOptions
    {
        var o = ReadOptions(
            accessKey: key, files: try files(a.value("files")),
            allowBACFallback: a.flag("allow-bac-fallback"))
        o.forbidBAC = a.flag("no-bac-fallback")
        if let c = a.value("aa-challenge") {
            guard let b = Hex.decode(c), b.count == 8 else {
                throw UsageError("--aa-challenge must be 8 bytes in hex (16 hex digits)")
            }
            if var files = o.files {
                guard files.contains(.dg15) else {
                    throw UsageError(
                        "--aa-challenge needs DG15 (Active Authentication verifies with its key): add DG15 to --files",
                        code: .conflictingOptions)
                }
                // An ECDSA key's hash is named by DG14's ActiveAuthenticationInfo (9303-11 §6.1): read it too.
                if !files.contains(.dg14) {
                    files.insert(.dg14)
                    o.files = files
                    if !a.flag("quiet") {
                        Console.err(
                            "emrtd: reading DG14 too: an ECDSA Active Authentication key needs its ActiveAuthenticationInfo"
                        )
                    }
                }
            }
            o.activeAuthenticationChallenge = b
        }
        o.representTimeout = timeout(a, name: timeoutOption)
        return o
    }

    /// The card wait, checked at parse time (`Options.cardWait`); 30 s when not given.
    static func timeout(_ a: ParsedArguments, name: String = "timeout") -> Double {
        a.number(name) ?? 30
    }

    /// `--profiles FILE`, loaded before any document is asked for.
    static func readerProfiles(_ a: ParsedArguments) throws(CLIError) -> ReaderProfiles {
        guard let path = a.value("profiles") else { return .builtIn }
        do { return try ReaderProfiles.load(path: path) } catch {
            throw CLIError(
                .badReaderProfiles,
                "--profiles \(Shown.path(path)) is not a usable readers file: \(PlainWords.reason(error.reason, fallback: "it must be JSON with schema emrtd.readers/1", hiding: [path])) (see hardware/README.md)",
                status: .usage)
        }
    }

    /// The in-process virtual document of `--virtual`, resolved before any reading.
    static func virtualDocument(_ a: ParsedArguments) throws(CLIError) -> (DocumentProfile, GeneratedDocument?)? {
        guard let profile = a.value("virtual") else { return nil }
        let folder = URL(fileURLWithPath: profile)
        if ProfileStore.isProfileDirectory(folder) {
            // a saved profile (emrtd simulate --save DIR): its own trust files are not trusted implicitly
            do { return (try ProfileStore.load(from: folder), nil) } catch {
                throw CLIError(
                    .unknownProfile,
                    "--virtual \(Shown.path(profile)): the saved profile folder cannot be loaded (\(PlainWords.reason(error.description, fallback: "damaged", hiding: [profile]))); save it again with emrtd simulate --save",
                    status: .usage)
            }
        }
        let g = try VirtualProfiles.generate(profile, option: "--virtual")
        return (g.profile, g)
    }

    /// The transport: a PC/SC reader (waiting for a card), or the in-process virtual chip with `--virtual`.
    static func transport(
        _ a: ParsedArguments, virtual: DocumentProfile?, profiles: ReaderProfiles,
        timeout: Double, timeoutOption: String = "timeout"
    ) async throws(CLIError) -> any CardTransport {
        if let p = virtual {
            return LocalCardTransport(
                emulator: VirtualChip(profile: p), name: "virtual chip (\(p.name))",
                capabilities: p.link.extendedLength ? .extended : .shortOnly)
        }
        do {
            if !a.flag("quiet") {
                Console.err(
                    "Waiting for a document\(a.value("reader").map { " on \($0)" } ?? "") (up to \(seconds(timeout)) s)…"
                )
            }
            return try await PCSCCardTransport.connectWhenPresented(
                readerQuery: a.value("reader"), timeout: timeout,
                profiles: profiles)
        } catch let e as TransportError where e.kind == .timeout {
            throw CLIError(.transport, noDocumentMessage(timeout: timeout, option: timeoutOption), status: .transport)
        } catch let e as TransportError {
            throw CLIError(.transport, e.description + PCSCCommandOutput.hint(e), status: .transport)
        } catch {
            throw CLIError(
                .transport,
                "the reader could not be used — check that pcscd runs and the reader is plugged in (emrtd readers)",
                status: .transport)
        }
    }

    /// The card wait ran out: the time asked for (whole seconds, or tenths) and what to do about it.
    static func noDocumentMessage(timeout: Double, option: String) -> String {
        "no document was presented within \(seconds(timeout)) s — place the document flat on the reader (emrtd readers"
            + " shows whether pcscd sees it) and run the command again, or allow more time with --\(option) SECONDS"
    }

    /// Seconds for a message: whole seconds, or tenths below 10 s.
    static func seconds(_ s: Double) -> String {
        s.rounded() == s || s >= 10 ? String(Int(s.rounded())) : String(format: "%.1f", s)
    }

    /// Trust store from the options, loaded before any document is asked for.
    static func trust(_ a: ParsedArguments, command: String) throws(CLIError) -> TrustStore {
        let (store, refused) = try TrustOptions.store(from: a)
        for r in refused { Console.err(TrustOptions.refusalLine(r, command: command)) }
        if !a.all("trust").isEmpty && !store.hasCSCAs {
            throw CLIError(
                .trustMaterial, "no usable CSCA certificate in the --trust material (emrtd trust --trust … shows why)",
                status: .trust)
        }
        return store
    }

    /// With `--virtual` and no `--trust`: the generated document's CSCA.
    static func addGenerated(_ g: GeneratedDocument?, to store: inout TrustStore, _ a: ParsedArguments) {
        guard let g, a.all("trust").isEmpty else { return }
        _ = try? store.addCertificate(der: g.cscaCertificate, source: "generated test CSCA")
        if !g.crl.isEmpty { _ = try? store.addCRL(der: g.crl, source: "generated test CRL") }
    }
}

/// `emrtd read`: wait for a document, read it, verify it.
enum ReadCommand {
    static let command = CommandDecl(
        "read", summary: "read and verify a document on a reader",
        discussion: """
            Waits for a document on the reader, reads it and verifies it. Give the access data as one of:
              --mrz MRZ | --document-number N --birth-date YYMMDD --expiry-date YYMMDD | --can CAN
            (--mrz - or --can - reads the value from standard input, keeping it out of the process list).
            Everything that can be checked before a document is asked for (options, --trust, --profiles, --out)
            is checked first.
            """,
        options: Options.access + Options.trust + Options.reader + [Options.allowExpired, Options.json, Options.quiet],
        schema: "emrtd.report/1", exits: [.ok, .usage, .transport, .accessControl, .trust, .inconclusive, .rejected],
        run: { try await run($0) })

    static func run(_ inv: Invocation) async throws -> Int32 {
        let a = inv.arguments
        let key = try AccessOptions.key(from: a)
        let options = try ReadSetup.options(a, key: key)
        let out = try OutputFolder.prepare(a.value("out"), command: inv.command)
        let html = try HTMLOutput.prepare(a.value("html"), command: inv.command)
        let tracePath = try ReadFlow.prepareTrace(a.value("trace"))
        let profiles = try ReadSetup.readerProfiles(a)
        var store = try ReadSetup.trust(a, command: inv.command)
        let virtual = try ReadSetup.virtualDocument(a)
        ReadSetup.addGenerated(virtual?.1, to: &store, a)
        if store.isEmpty && !a.flag("quiet") {
            Console.err(
                "emrtd read: no --trust given: the document cannot be anchored to a CSCA, so the verdict is at best inconclusive"
            )
        }
        let transport = try await ReadSetup.transport(
            a, virtual: virtual?.0, profiles: profiles, timeout: options.representTimeout)
        let flow = ReadFlow(
            json: a.flag("json"), out: out, tracePath: tracePath, htmlPath: html, quiet: a.flag("quiet"),
            allowExpired: a.flag("allow-expired"))
        let o = try await flow.run(transport: transport, options: options, trustStore: store)
        flow.print(o)
        return ReadFlow.exitCode(for: o.verification.status)
    }
}

/// Keeps foreign error texts out of messages when they are dumps (Swift type names, Foundation domains, ranges).
enum PlainWords {
    /// `text` with every occurrence of `paths` (as given, absolute, and the last component) replaced by "it": a
    /// library message may repeat a path that was a value typed in the wrong place.
    static func reason(_ text: String, fallback: String, hiding paths: [String]) -> String {
        var t = text
        for p in paths where !p.isEmpty {
            let url = URL(fileURLWithPath: p)
            for form in [url.path, url.standardizedFileURL.path, p, url.lastPathComponent].sorted(by: {
                $0.count > $1.count
            })
            where form.count >= 3 {
                t = t.replacingOccurrences(of: form, with: "it")
            }
        }
        return reason(t, fallback: fallback)
    }

    static func reason(_ text: String, fallback: String) -> String {
        let dumps = [
            "DecodingError", "codingPath", "CodingKeys", "NSCocoaErrorDomain", "Code=", "Swift.", "debugDescription",
            "NSError", "Optional(", "...", "UserInfo",
        ]
        return dumps.contains(where: { text.contains($0) }) || text.count > 200 ? fallback : text
    }
}
