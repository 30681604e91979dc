import Foundation
import Testing

@testable import EMRTDCLI

/// No error path of any command repeats access data. Every command (and step-up subcommand) is
/// run with the specimen MRZ, its key parts and a CAN placed where they do not belong — as extra words, split
/// in two, after flags, as unknown options, as values of the wrong option — and stdout + stderr are searched.
@Suite struct SecretSweepTests {
    /// ICAO 9303-4 specimen (Utopia): not personal data.
    static let mrz = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<L898902C36UTO7408122F1204159ZE184226B<<<<<10"
    static let line1 = String(mrz.prefix(44)), line2 = String(mrz.suffix(44))
    static let can = "493187"
    static let secrets = [mrz, line1, line2, "L898902C3", "740812", "120415", can, "ERIKSSON"]

    /// Malformed, misplaced and extra arguments carrying the secrets.
    static var malformed: [[String]] {
        [
            [mrz],
            ["--mrz", line1, line2],
            ["--mrz=" + line1, line2],
            ["--can", can, "789012"],
            ["--can=" + can, mrz],
            ["--document-number", "L898902C3", "--birth-date", "740812", "--expiry-date", "120415", "stray"],
            ["--document-number", "L898902C3", "--birth-date", "740812", "--expiry-date", "120415", "--can", can],
            ["--mrz", mrz, "--can", can],
            ["--json=" + can],
            ["--quiet=" + mrz],
            ["--" + line2],
            ["-" + can],
            ["--L898902C3"],
            ["--" + can],
            ["--mrz", String(mrz.dropLast())],
            ["--mrz", mrz.replacingOccurrences(of: "<<<<<10", with: "<<<<<19")],
            ["--mrz", mrz.replacingOccurrences(of: "7408122", with: "7408121")],
            ["--birth-date", "740812", "--expiry-date", "120415"],
            ["--document-number", "L898902C3", "--birth-date", "741312", "--expiry-date", "120415"],
            ["--can", "74081"],
            ["--can", "L898902C3"],
            ["--profile", "L898902C3"],
            ["--profile", mrz],
            ["--virtual", "L898902C3", "--can", can],
            ["--files", "L898902C3", "--can", can],
            ["--at", "740812"],
            ["--runs", "740812"],
            ["--timeout", "L898902C3", "--can", can],
            ["--aa-challenge", "L898902C3", "--can", can],
            ["--vpcd", "L898902C3"],
            ["--out", "/proc/" + "L898902C3", "--can", can],
            ["--trust", "/nonexistent/L898902C3", "--can", can],
            ["--profiles", "/nonexistent/" + can, "--can", can],
            ["--masterlists", "/nonexistent/740812"],
            ["--user-id", "L898902C3", "--device-id", can],
            ["--client-secret", can],
            ["/nonexistent/" + mrz],
            ["--mrz", "-", "--files", "DG99"],
        ]
    }

    static var commandPaths: [[String]] {
        EMRTDCommand.commands.flatMap { c in
            c.subcommands.isEmpty ? [[c.name]] : c.subcommands.map { [c.name, $0.name] }
        }
    }

    /// Whether an invocation would really run (wait for a card, serve vpcd, benchmark): those are not error
    /// paths and are left out — the sweep is about what a command says when it refuses its arguments.
    static func wouldRun(_ path: [String], _ args: [String]) -> Bool {
        guard let decl = Completion.leaves.first(where: { $0.path == path.joined(separator: " ") })?.decl else {
            return false
        }
        guard (try? decl.parse(args)) != nil else { return false }
        return ["readers", "watch", "bench"].contains(path[0])
    }

    @Test func noErrorPathRepeatsAccessData() throws {
        var runs = 0
        for path in Self.commandPaths {
            for args in Self.malformed where !Self.wouldRun(path, args) {
                // stdin carries the MRZ too (for `--mrz -` and `stepup … -`)
                let r = try Emrtd.run(
                    path + args, stdin: Self.mrz + "\n", environment: ["PATH": "/usr/bin:/bin"], timeout: 20)
                runs += 1
                let all = r.stdout + r.stderr
                for s in Self.secrets {
                    #expect(
                        !all.contains(s),
                        "`emrtd \(path.joined(separator: " ")) \(args.count) words` (exit \(r.status)) repeats \(s): \(all)"
                    )
                }
            }
        }
        #expect(runs > 300)
    }

    @Test func aSplitMRZSaysWhereNotWhat() throws {
        let r = try Emrtd.run(["read", "--mrz", Self.line1, Self.line2])
        #expect(r.status == 2)
        #expect(r.stderr.contains("an extra argument after --mrz"), "\(r.stderr)")
        #expect(r.stderr.contains("--mrz -"))
        let c = try Emrtd.run(["read", "--can", Self.can, "789012"])
        #expect(c.stderr.contains("an extra argument after --can"), "\(c.stderr)")
    }

    @Test func theCompositeAndOptionalDataCheckDigitsAreChecked() throws {
        let composite = try Emrtd.run(["read", "--mrz", Self.mrz.replacingOccurrences(of: "<<<<<10", with: "<<<<<19")])
        #expect(composite.status == 2)
        #expect(composite.stderr.contains("composite"), "\(composite.stderr)")
        let optional = try Emrtd.run(["read", "--mrz", Self.mrz.replacingOccurrences(of: "<<<<<10", with: "<<<<<20")])
        #expect(optional.status == 2)
        #expect(optional.stderr.contains("optional data"), "\(optional.stderr)")
    }

    @Test func theParserNeverQuotesAWordThatIsNotAnOptionName() {
        let decl = ReadCommand.command
        for args in Self.malformed {
            do { _ = try decl.parse(args) } catch {
                for s in Self.secrets { #expect(!error.message.contains(s), "\(error.message)") }
            }
        }
    }
}
