import Foundation
import ISO7816
import MRTDTestSupport
import PCSCTransport
import Testing
import VPCDBridge

struct ReaderProfileTests {
    static let readersFile = RepositoryPaths.root.appendingPathComponent("hardware/readers.json")

    @Test("hardware/readers.json loads and the binary's embedded copy is the same text")
    func embeddedCopy() throws {
        let profiles = try ReaderProfiles.load(path: Self.readersFile.path)
        #expect(profiles == ReaderProfiles.builtIn)
        let text = try String(contentsOf: Self.readersFile, encoding: .utf8)
        #expect(text == ReaderProfiles.builtInJSON, "the embedded resource and hardware/readers.json differ")
    }

    @Test("every profile cites a source; only vpcd is marked tested")
    func sourcesAndStatus() {
        for p in ReaderProfiles.builtIn.profiles {
            #expect(!p.sources.isEmpty, "\(p.id)")
            #expect(
                p.sources.allSatisfy {
                    $0.url.hasPrefix("https://") || $0.url.hasPrefix("file:") || $0.url.hasPrefix("/")
                }, "\(p.id)")
            #expect(p.isTested == (p.id == "vsmartcard-vpcd"), "\(p.id) status \(p.status)")
        }
    }

    @Test(
        "PC/SC reader names select their profile",
        arguments: [
            ("Virtual PCD 00 00", "vsmartcard-vpcd"),
            ("Virtual PCD 00 01", "vsmartcard-vpcd"),
            ("ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] 00 00", "acs-acr1252u"),
            ("ACS ACR1281U 00 00", "acs-acr1281u"),
            ("ACS ACR122U PICC Interface 00 00", "acs-acr122u"),
            ("HID Global OMNIKEY 5022 Smart Card Reader 00 00", "hid-omnikey-5022"),
            ("HID Global OMNIKEY 5422 Smartcard Reader [OMNIKEY 5422CL Smartcard Reader] 01 00", "hid-omnikey-5422"),
            ("HID OMNIKEY 5427 CK [OMNIKEY 5427 CK] 00 00", "hid-omnikey-5427"),
            ("Identiv uTrust 3700 F CL Reader [uTrust 3700 F CL Reader] 00 00", "identiv-utrust-3700f"),
            (
                "Identiv Identiv uTrust 4701 F Dual Interface Reader [uTrust 4701 F CL Reader] 01 00",
                "identiv-utrust-4701f"
            ),
            ("REINER SCT cyberJack RFID basis 00 00", "reinersct-cyberjack-rfid"),
            ("Feitian R502 [R502 Contactless Reader] 00 00", "feitian-r502"),
        ])
    func matching(_ row: (String, String)) {
        #expect(ReaderProfiles.builtIn.profile(forReader: row.0)?.id == row.1)
    }

    @Test("names of other readers match no profile")
    func noMatch() {
        #expect(ReaderProfiles.builtIn.profile(forReader: "Gemalto PC Twin Reader 00 00") == nil)
        #expect(ReaderProfiles.builtIn.profile(forReader: "Virtual PCD") == nil)
    }

    @Test(
        "glob patterns: whole-name, case-insensitive, * and ?",
        arguments: [
            ("ACS ACR1252*", "acs acr1252 dual reader 00 00", true),
            ("ACS ACR1252*", "xACS ACR1252 00 00", false),
            ("*OMNIKEY 5422*", "HID Global OMNIKEY 5422 Smartcard Reader 00 00", true),
            ("Virtual PCD ?? ??", "Virtual PCD 00 01", true),
            ("Virtual PCD ?? ??", "Virtual PCD 00 001", false),
            ("a*b*c", "abc", true),
            ("a*b*c", "acb", false),
            ("", "", true),
            ("*", "", true),
        ])
    func glob(_ row: (String, String, Bool)) {
        #expect(ReaderProfiles.glob(row.0, matches: row.1) == row.2)
    }

    static func file(_ readers: String, schema: String = "emrtd.readers/1") -> Data {
        Data(#"{"schema": "\#(schema)", "readers": [\#(readers)]}"#.utf8)
    }
    static let good =
        #"{"id": "x", "vendor": "V", "model": "M", "match": ["M*"], "extendedLength": true, "maxCommandSize": 1000, "maxResponseSize": 2000, "quirks": [], "sources": [{"title": "t", "url": "https://example.org"}], "status": "untested"}"#

    @Test(
        "a valid file parses; each broken rule is refused with a reason",
        arguments: [
            ("schema", "emrtd.readers/2", "schema"),
            ("no source", #""sources": [{"title": "t", "url": "https://example.org"}]"#, "cites no source"),
            ("no pattern", #""match": ["M*"]"#, "no match pattern"),
            ("status", #""status": "untested""#, "status must be"),
            ("size", #""maxCommandSize": 1000"#, "maxCommandSize"),
        ])
    func validation(_ row: (String, String, String)) throws {
        _ = try ReaderProfiles(json: Self.file(Self.good))
        let broken: Data
        switch row.0 {
        case "schema": broken = Self.file(Self.good, schema: row.1)
        case "no source": broken = Self.file(Self.good.replacingOccurrences(of: row.1, with: #""sources": []"#))
        case "no pattern": broken = Self.file(Self.good.replacingOccurrences(of: row.1, with: #""match": []"#))
        case "status": broken = Self.file(Self.good.replacingOccurrences(of: row.1, with: #""status": "works""#))
        default: broken = Self.file(Self.good.replacingOccurrences(of: row.1, with: #""maxCommandSize": 70000"#))
        }
        let error = #expect(throws: ReaderProfilesError.self) { try ReaderProfiles(json: broken) }
        #expect(error?.reason.contains(row.2) == true, "\(String(describing: error))")
    }

    @Test("duplicate ids and a missing file are refused")
    func duplicatesAndMissing() {
        #expect(throws: ReaderProfilesError.self) { try ReaderProfiles(json: Self.file(Self.good + "," + Self.good)) }
        #expect(throws: ReaderProfilesError.self) { try ReaderProfiles.load(path: "/nonexistent/readers.json") }
    }
}

struct EventDiffTests {
    static let r = "Reader A 00 00"
    static func state(_ flags: PCSCReaderState.Flags, counter: UInt16 = 0, atr: [UInt8] = []) -> PCSCReaderState {
        PCSCReaderState(reader: r, flags: flags, eventCounter: counter, atr: atr)
    }

    @Test("reader and card transitions become events")
    func transitions() {
        let atr: [UInt8] = [0x3B, 0x80, 0x80, 0x01, 0x01]
        let empty = Self.state(.empty, counter: 4)
        let present = Self.state([.present, .inUse], counter: 5, atr: atr)
        #expect(PCSCEvent.diff(from: [:], to: [Self.r: empty]) == [.readerAdded(reader: Self.r)])
        #expect(
            PCSCEvent.diff(from: [:], to: [Self.r: present]) == [
                .readerAdded(reader: Self.r), .cardInserted(reader: Self.r, atr: atr),
            ])
        #expect(
            PCSCEvent.diff(from: [Self.r: empty], to: [Self.r: present]) == [.cardInserted(reader: Self.r, atr: atr)])
        #expect(
            PCSCEvent.diff(from: [Self.r: present], to: [Self.r: Self.state(.empty, counter: 6)]) == [
                .cardRemoved(reader: Self.r)
            ])
        #expect(
            PCSCEvent.diff(from: [Self.r: present], to: [:]) == [
                .cardRemoved(reader: Self.r), .readerRemoved(reader: Self.r),
            ])
        #expect(PCSCEvent.diff(from: [Self.r: empty], to: [:]) == [.readerRemoved(reader: Self.r)])
        // No change, or only the in-use flag: no event.
        #expect(
            PCSCEvent.diff(from: [Self.r: present], to: [Self.r: Self.state(.present, counter: 5, atr: atr)]).isEmpty)
        // Removed and put back between two looks: the counter moved by 2.
        let back = Self.state(.present, counter: 7, atr: atr)
        #expect(
            PCSCEvent.diff(from: [Self.r: present], to: [Self.r: back]) == [
                .cardRemoved(reader: Self.r), .cardInserted(reader: Self.r, atr: atr),
            ])
        // A mute card.
        let mute = Self.state([.present, .mute], counter: 5)
        #expect(PCSCEvent.diff(from: [Self.r: empty], to: [Self.r: mute]) == [.cardMute(reader: Self.r)])
    }

    @Test("reader selection: exact, unique substring, default; errors name the choices")
    func selection() throws {
        let states = [
            "ACS ACR1252 Dual Reader [PICC] 00 00", "ACS ACR1252 Dual Reader [SAM] 00 01", "Virtual PCD 00 00",
        ]
        .map { PCSCReaderState(reader: $0, flags: .empty) }
        #expect(try PCSCContext.selectReader("Virtual PCD 00 00", from: states) == "Virtual PCD 00 00")
        #expect(try PCSCContext.selectReader("picc", from: states) == "ACS ACR1252 Dual Reader [PICC] 00 00")
        #expect(try PCSCContext.selectReader(nil, from: states) == states[0].reader)
        var withCard = states
        withCard[2].flags = .present
        #expect(try PCSCContext.selectReader(nil, from: withCard) == "Virtual PCD 00 00")
        let several = #expect(throws: TransportError.self) { try PCSCContext.selectReader("ACR1252", from: states) }
        #expect(several?.kind == .noReader && several?.message.contains("several") == true)
        let none = #expect(throws: TransportError.self) { try PCSCContext.selectReader("OMNIKEY", from: states) }
        #expect(none?.kind == .noReader)
        #expect(throws: TransportError.self) { try PCSCContext.selectReader(nil, from: []) }
    }

    @Test("vpcd frames: 2-byte big-endian length, then the payload")
    func vpcdFrame() {
        #expect(VPCDBridge.frame([0x04]) == [0x00, 0x01, 0x04])
        #expect(VPCDBridge.frame(Array(repeating: 0xAB, count: 0x1234)).prefix(3) == [0x12, 0x34, 0xAB])
    }
}

struct VPCDBridgeUnitTests {
    @Test("nothing listening: run() fails with a message naming host, port and the likely cause")
    func connectFailure() async throws {
        // Port 9 (discard) on loopback: nothing listens in the test environment.
        let bridge = VPCDBridge(emulator: TestCard(), port: 9, connectTimeout: 0.2)
        let error = await #expect(throws: VPCDError.self) {
            try await withTimeout(5, "bridge connect failure") { try await bridge.run() }
        }
        #expect(error?.reason.contains("127.0.0.1:9") == true, "\(String(describing: error))")
        #expect(error?.reason.contains("vpcd") == true)
        #expect(!bridge.isConnected)
    }

    @Test("stop() before the connection is made: run() returns .stopped")
    func stopFirst() async throws {
        let bridge = VPCDBridge(emulator: TestCard(), port: 9, connectTimeout: 5)
        bridge.stop()
        let reason = try await withTimeout(5, "bridge stop") { try await bridge.run() }
        #expect(reason == .stopped)
        #expect(bridge.apduCount == 0)
    }
}

struct VPCDAddressTests {
    @Test(
        "--vpcd HOST:PORT parsing",
        arguments: [
            ("", "127.0.0.1", 35963),
            ("localhost:35964", "localhost", 35964),
            ("35964", "127.0.0.1", 35964),
            ("vpcd.local", "vpcd.local", 35963),
            ("[::1]:35963", "::1", 35963),
            (":35964", "127.0.0.1", 35964),
            ("::1", "::1", 35963),
        ])
    func valid(_ row: (String, String, Int)) {
        let parsed = VPCDBridge.parseAddress(row.0)
        #expect(parsed?.host == row.1)
        #expect(parsed.map { Int($0.port) } == row.2)
    }

    @Test(
        "bad --vpcd values are refused", arguments: ["host:0", "host:65536", "host:x", "[::1", "[::1]x", "[::1]:99999"])
    func invalid(_ text: String) {
        #expect(VPCDBridge.parseAddress(text) == nil)
    }
}
