import DocumentGenerator
import ISO7816
import MRTDDocument
import MRTDReader
import Testing
import VirtualChip

/// Chip behaviour seen in the field: each a `ChipFaults` mode of the virtual chip, read
/// end to end through `DocumentReader`.
@Suite struct ChipFaultTests {
    static func generate(_ name: String, dg2Size: Int? = nil, edit: ((inout DocumentProfile) -> Void)? = nil) throws
        -> GeneratedDocument
    {
        var options = GeneratorOptions()
        if let dg2Size { options.dg2Size = dg2Size }
        var g = try SpecimenGenerator.generate(named: name, options: options)
        edit?(&g.profile)
        return g
    }

    /// Byte equality without Swift Testing printing both (large) operands on failure.
    func same(_ a: [UInt8]?, _ b: [UInt8]?) -> Bool { a == b }

    /// An ATR whose card capabilities (ISO/IEC 7816-4 §8.1.1.2.7) say whether the chip takes extended length.
    static func atr(extended: Bool) -> [UInt8] {
        let historical: [UInt8] = [0x80, 0x73, 0x00, 0x00, extended ? 0x40 : 0x00]
        let body: [UInt8] = [0x80 | UInt8(historical.count), 0x80, 0x01] + historical
        return [0x3B] + body + [body.reduce(0, ^)]
    }

    func expectComplete(
        _ doc: VirtualDocument, _ r: ReadResult, _ files: [LDSFile] = [.com, .sod, .dg1, .dg2, .dg14, .dg15]
    ) {
        for f in files where doc.generated.profile.files[f] != nil {
            #expect(same(r.files[f], doc.generated.profile.files[f]), "\(f.rawValue) differs or is missing")
        }
        #expect(r.resumptions == 0, "the read resumed \(r.resumptions) time(s)")
        #expect(doc.chip.snapshot.droppedSessions == 0, "the chip dropped a secure-messaging session")
        #expect(doc.verify(r).status == .accepted)
    }

    // MARK: 61xx response chaining

    @Test(
        "61xx: plain and protected responses chained through GET RESPONSE, unwrapped once, no PACE restart",
        arguments: [
            ("short-only", 100), ("pace-gm-p256-aes256", 37), ("extended", 1000), ("bac", 64), ("pace-cam", 50),
        ])
    func responseChaining(profile: String, partSize: Int) async throws {
        let doc = try VirtualDocument(
            generated: Self.generate(profile), faults: ChipFaults(chainResponsesLongerThan: partSize))
        let r = try await doc.read()
        expectComplete(doc, r)
        let getResponses = r.statistics.apdusByInstruction[0xC0] ?? 0
        #expect(getResponses > 0, "no GET RESPONSE was sent: the fault did not chain anything")
        // one PACE (or BAC), not one per chained answer
        let generalAuthenticates = r.statistics.apdusByInstruction[0x86] ?? 0
        #expect(generalAuthenticates <= 6)
    }

    @Test("61xx: a chip that never stops chaining ends the exchange with a clear error")
    func endlessChaining() async throws {
        final class Endless: CardEmulator, @unchecked Sendable {
            let atr: [UInt8] = [0x3B, 0x80, 0x80, 0x01, 0x01]
            func powerOn() {}
            func powerOff() {}
            func reset() {}
            func process(_ command: [UInt8]) -> [UInt8] { [0x01, 0x61, 0x10] }
        }
        let t = LocalCardTransport(emulator: Endless(), capabilities: .shortOnly)
        let error = await #expect(throws: TransportError.self) {
            _ = try await t.transmitCollectingChainedResponse(.readBinary(sfi: 0x1C, offset: 0, ne: 256))
        }
        #expect(error?.kind == .protocolError)
        #expect(t.statistics.apdus == ResponseChaining.maximumParts + 1)
    }

    @Test(
        "61xx in small parts (60 bytes per GET RESPONSE): read whole, also an extended response of many parts",
        arguments: ["extended", "short-only", "pace-cam"])
    func smallChainedParts(profile: String) async throws {
        let doc = try VirtualDocument(
            generated: Self.generate(profile), faults: ChipFaults(chainResponsesLongerThan: 60, chainPartSize: 60))
        let r = try await doc.read()
        expectComplete(doc, r)
        let getResponses = r.statistics.apdusByInstruction[0xC0] ?? 0
        #expect(getResponses > 0)
        if profile == "extended" {
            // one extended READ BINARY of DG2 alone took more GET RESPONSEs than the old bound of 260 parts
            #expect((doc.generated.profile.files[.dg2]?.count ?? 0) / 60 > ResponseChaining.maximumParts)
        }
    }

    @Test("61xx one byte at a time, forever: the read fails with a bounded number of commands")
    func tricklingChainIsBounded() async throws {
        let doc = try VirtualDocument(
            generated: Self.generate("extended"),
            faults: ChipFaults(chainResponsesLongerThan: 300, chainPartSize: 1, chainNeverEnds: true))
        await #expect(throws: ReadError.self) { _ = try await doc.read() }
        let apdus = doc.transport.statistics.apdus
        // each chained answer stops after 260 one-byte parts; a read gives up after a few such answers
        #expect(apdus < 20 * (ResponseChaining.maximumParts + 1), "\(apdus) APDUs")
    }

    // MARK: 6Cxx on plain reads

    @Test("6Cxx on plain READ BINARY: asked again with the exact length")
    func wrongLeOnPlainReads() async throws {
        let doc = try VirtualDocument(
            generated: Self.generate("pace-gm-brainpool-aes128"),
            faults: ChipFaults(wrongLeOnPlainReads: true))
        let r = try await doc.read()
        expectComplete(doc, r, [.cardAccess, .sod, .dg1, .dg2])
        // EF.CardAccess (a plain read): the 6Cxx, then the exact length
        #expect(r.fileFacts[.cardAccess]?.apdus == 2)
    }

    // MARK: fewer bytes than asked

    @Test(
        "fewer bytes than asked at every offset: followed to the end, plain and under SM",
        arguments: ["short-only", "extended", "bac"])
    func shortReads(profile: String) async throws {
        let doc = try VirtualDocument(generated: Self.generate(profile), faults: ChipFaults(shortReads: true))
        let r = try await doc.read()
        expectComplete(doc, r)
    }

    // MARK: declared length beyond the file

    @Test(
        "a declared length beyond what the chip returns ends that file's read with a clear outcome, not a loop",
        arguments: [false, true])
    func declaredLengthBeyondTheFile(shortReads: Bool) async throws {
        let g = try Self.generate("short-only", dg2Size: 5000) { p in
            p.files[.dg2] = Array(p.files[.dg2]!.dropLast(700))
        }
        let doc = try VirtualDocument(generated: g, faults: ChipFaults(shortReads: shortReads))
        let r = try await doc.read()
        #expect(r.files[.dg2]?.count == nil)
        guard case .failed(let sw)? = r.unreadFiles[.dg2] else {
            Issue.record("DG2 should be unread with a failed outcome, is \(String(describing: r.unreadFiles[.dg2]))")
            return
        }
        #expect(sw == .wrongParametersOffsetOutsideEF || sw == .endOfFileReached)
        // every byte the chip holds read once, then one refusal: no loop
        let reads = r.statistics.apdusByInstruction[0xB0] ?? 0
        #expect(reads < 200, "\(reads) READ BINARY")
        #expect(same(r.files[.dg1], g.profile.files[.dg1]))
    }

    // MARK: 9000 without data

    @Test("9000 without data inside the file: no endless loop")
    func emptySuccessInsideTheFile() async throws {
        let g = try Self.generate("short-only", dg2Size: 8000)
        let sod = g.profile.files[.sod]!.count
        let offset = max(sod, g.profile.files[.dg14]?.count ?? 0, g.profile.files[.dg1]!.count) + 300
        let doc = try VirtualDocument(generated: g, faults: ChipFaults(emptyReadsFromOffset: offset))
        let r = try await doc.read()
        #expect(r.files[.dg2]?.count == nil, "DG2 was read whole although the chip withheld its end")
        #expect(r.unreadFiles[.dg2] == .failed(.success))
        #expect(same(r.files[.sod], g.profile.files[.sod]), "EF.SOD differs or is missing")
        // no loop: the chunk never goes below 64 bytes and an offset is retried at most twice, so the whole document
        // costs at most one READ BINARY per 64 bytes plus three per file
        let reads = r.statistics.apdusByInstruction[0xB0] ?? 0
        let bound = g.profile.files.values.reduce(0) { $0 + $1.count } / 64 + 3 * g.profile.files.count
        #expect(reads <= bound, "\(reads) READ BINARY, bound \(bound)")
    }

    // MARK: a chip slower than the reader

    @Test("a chip slower than the reader's timeout: the read ends with a timeout after its resumptions")
    func slowChip() async throws {
        let doc = try VirtualDocument(
            generated: Self.generate("pace-gm-brainpool-aes128"),
            faults: ChipFaults(delay: 0.06), responseTimeout: 0.02)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try await doc.read {
                $0.maxResumptions = 2
                $0.representTimeout = 1
            }
            Issue.record("the read of a chip slower than the reader's timeout succeeded")
        } catch {
            guard case .transport(let e, let resumptions) = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(e.kind == .timeout)
            #expect(resumptions == 2)
        }
        #expect(clock.now - start < .seconds(10))
    }

    @Test("a chip slower than usual but within the reader's timeout reads normally")
    func slowButInTime() async throws {
        let doc = try VirtualDocument(
            generated: Self.generate("pace-gm-brainpool-aes128", dg2Size: 3000),
            faults: ChipFaults(delay: 0.002), responseTimeout: 2)
        let r = try await doc.read()
        expectComplete(doc, r)
    }

    // MARK: no wasted exchanges

    /// A read of `profile` on an extended-capable reader, the chip's ATR saying what it takes, with its trace.
    func tracedRead(_ profile: String, atrSaysExtended: Bool) async throws -> (
        VirtualDocument, ReadResult, [APDUTrace.Entry]
    ) {
        let g = try Self.generate(profile) { $0.link.atr = Self.atr(extended: atrSaysExtended) }
        let doc = try VirtualDocument(generated: g, capabilities: .extended)
        let trace = APDUTrace()
        let r = try await DocumentReader(
            transport: doc.transport, options: ReadOptions(accessKey: doc.mrzKey), trace: trace
        ).read()
        return (doc, r, trace.all)
    }

    @Test("a chip whose ATR says short APDUs only gets no extended-length probe: the first APDU is a short READ BINARY")
    func noProbeWhenTheATRSaysNo() async throws {
        let (doc, r, trace) = try await tracedRead("short-only", atrSaysExtended: false)
        let first = try #require(trace.first)
        #expect(first.header == "00 B0 9C 00", "first APDU \(first.header)")
        #expect(first.commandLength == 5, "the first READ BINARY is \(first.commandLength) bytes: not a short APDU")
        #expect(!trace.contains { $0.status == "6700" }, "a command was refused for its length")
        #expect(!r.usedExtendedLength)
        #expect(r.fileFacts[.cardAccess]?.apdus == 1)
        expectComplete(doc, r)
    }

    @Test("a chip whose ATR says extended length: the probe reads EF.CardAccess in one extended APDU")
    func probeWhenTheATRSaysYes() async throws {
        let (_, r, trace) = try await tracedRead("extended", atrSaysExtended: true)
        let first = try #require(trace.first)
        #expect(first.header == "00 B0 9C 00")
        #expect(first.commandLength == 7, "the probe is an extended READ BINARY")
        #expect(r.usedExtendedLength)
        #expect(r.fileFacts[.cardAccess]?.apdus == 1)
    }

    @Test("EF.CardSecurity is read for PACE-CAM only (or when asked for)")
    func cardSecurityOnlyWhenNeeded() async throws {
        // a PACE-GM chip that has an EF.CardSecurity (as many do): nothing needs it
        let camDocument = try Self.generate("pace-cam")
        let gm = try VirtualDocument(
            generated: Self.generate("pace-gm-brainpool-aes128") {
                $0.files[.cardSecurity] = camDocument.profile.files[.cardSecurity]
            })
        #expect(gm.generated.profile.files[.cardSecurity] != nil)
        let trace = APDUTrace()
        let r = try await DocumentReader(
            transport: gm.transport, options: ReadOptions(accessKey: gm.mrzKey), trace: trace
        ).read()
        #expect(r.files[.cardSecurity]?.count == nil)
        #expect(r.unreadFiles[.cardSecurity] == nil)
        // between PACE and the SELECT of the eMRTD application no READ BINARY: only EF.CardAccess's before PACE
        let select = try #require(trace.all.firstIndex { $0.header.hasPrefix("0C A4 04") })
        #expect(trace.all[..<select].filter { $0.header.dropFirst(3).hasPrefix("B0") }.count == 1)
        #expect(gm.verify(r).status == .accepted)

        let cam = try VirtualDocument(generated: camDocument)
        let rc = try await cam.read()
        #expect(rc.chipAuthenticationMapping != nil)
        #expect(
            rc.files[.cardSecurity] != nil && same(rc.files[.cardSecurity], cam.generated.profile.files[.cardSecurity]))
        let v = cam.verify(rc)
        #expect(v.checks.first { $0.name == .paceChipAuthenticationMapping }?.status == .passed)

        let asked = try gm.fresh()
        let ra = try await asked.read { $0.files = [.cardSecurity, .dg1] }
        #expect(
            ra.files[.cardSecurity] != nil && same(ra.files[.cardSecurity], gm.generated.profile.files[.cardSecurity]))
    }
}
