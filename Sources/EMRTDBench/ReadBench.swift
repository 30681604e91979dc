import DocumentGenerator
import Foundation
import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
import MRTDReader
import MRTDSecureMessaging
import MRTDTrust
import VirtualChip

/// One cell of the profile matrix: a built-in profile, the APDU form and the DG2 size.
struct BenchCase: Sendable, Hashable {
    var profile: String
    var extended: Bool
    var dg2Size: Int

    var apduMode: String { extended ? "extended" : "short" }
    var label: String { "\(profile) \(apduMode) DG2 \(dg2Size / 1000) KB" }
}

/// The link model: every APDU costs one reader + chip turnaround, every byte its time at the air
/// data rate, and every secure-messaging APDU the chip's own crypto cost.
public struct LinkModel: Sendable, Codable, Hashable {
    public var kbps: Double = 424
    public var apduMs: Double = 4
    public var chipMsPerSMAPDU: Double = 0

    public init(kbps: Double = 424, apduMs: Double = 4, chipMsPerSMAPDU: Double = 0) {
        self.kbps = kbps
        self.apduMs = apduMs
        self.chipMsPerSMAPDU = chipMsPerSMAPDU
    }

    func milliseconds(apdus: Int, bytes: Int, smAPDUs: Int) -> Double {
        Double(apdus) * apduMs + Double(bytes) * 8 / kbps + Double(smAPDUs) * chipMsPerSMAPDU
    }
}

/// What one run of one phase measured.
struct PhaseSample: Sendable {
    var counters = ChipCounters()
    /// Process CPU in the phase (engine + chip + the benchmark's own clock reads).
    var cpu: UInt64 = 0
    /// The benchmark's CPU-clock reads whose cost lands in this phase: per APDU the pair around the chip
    /// call splits about evenly between chip and engine (one read's worth each), and the phase's boundary
    /// mark is shared with the neighbouring phase (about one read's worth).
    var clockReads = 0

    /// Engine CPU: the phase's CPU minus the chip's and minus the benchmark's clock reads.
    var engineNanoseconds: Double {
        let instrumentation = Double(clockReads) * BenchClock.cpuClockReadNanoseconds
        return max(0, Double(cpu) - Double(counters.chipNanoseconds) - instrumentation)
    }

    /// The chip's CPU without the one clock read per APDU that falls inside its interval.
    var chipNanoseconds: Double {
        max(0, Double(counters.chipNanoseconds) - Double(counters.apdus) * BenchClock.cpuClockReadNanoseconds)
    }

    mutating func add(_ c: ChipCounters, cpu: UInt64) {
        counters = counters + c
        self.cpu &+= cpu
        clockReads += c.apdus + 1
    }
}

/// One run of a read: the phases in order, with what each measured.
struct ReadRunSample: Sendable {
    var order: [String] = []
    var phases: [String: PhaseSample] = [:]
    var result: ReadResult
    var verification: VerificationOutcome
    var verifyNanoseconds: UInt64
    var total: ChipCounters

    mutating func add(_ phase: String, _ c: ChipCounters, cpu: UInt64) {
        if phases[phase] == nil { order.append(phase) }
        phases[phase, default: PhaseSample()].add(c, cpu: cpu)
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// A generated document ready to be read again and again.
struct PreparedDocument: Sendable {
    var generated: GeneratedDocument
    var profile: DocumentProfile
    var key: AccessKey
    var trustStore: TrustStore
    var benchCase: BenchCase

    init(_ c: BenchCase) throws {
        benchCase = c
        do {
            generated = try SpecimenGenerator.generate(named: c.profile, options: GeneratorOptions(dg2Size: c.dg2Size))
        } catch {
            throw BenchFailure("cannot generate \(c.profile): \(error.description)")
        }
        profile = generated.profile
        profile.link.extendedLength = c.extended
        // The chip says whether it takes extended length in the ATR's card capabilities (ISO/IEC 7816-4 §8.1.1.2.7:
        // historical bytes 80 73 xx xx 40 / 00). The reader needs it when the chip has no EF.CardAccess to probe with
        // (BAC), and a short-only chip so described gets no extended probe although the reader path takes
        // extended APDUs (fewer, larger reads): both cells run on an extended-capable reader.
        let historical: [UInt8] = [0x80, 0x73, 0x00, 0x00, c.extended ? 0x40 : 0x00]
        let body: [UInt8] = [0x80 | UInt8(historical.count), 0x80, 0x01] + historical
        profile.link.atr = [0x3B] + body + [body.reduce(0, ^)]
        do { key = .mrz(try MRZKey(mrz: profile.mrz)) } catch {
            throw BenchFailure("the specimen MRZ is unusable: \(error.reason)")
        }
        var store = TrustStore()
        do {
            _ = try store.addCertificate(der: generated.cscaCertificate, source: "generated test CSCA")
            if !generated.crl.isEmpty { _ = try store.addCRL(der: generated.crl, source: "generated test CRL") }
        } catch {
            throw BenchFailure("the generated trust anchor is unusable: \(error)")
        }
        trustStore = store
    }

    /// One read of a fresh chip plus passive authentication, split into phases by the reader's progress events.
    func readOnce(trustStore override: TrustStore? = nil) async throws -> ReadRunSample {
        let chip = MeteredChip(VirtualChip(profile: profile))
        let transport = LocalCardTransport(emulator: chip, name: "virtual chip (bench)", capabilities: .extended)
        let recorder = chip
        let reader = DocumentReader(transport: transport, options: ReadOptions(accessKey: key, allowBACFallback: true))
        recorder.mark("start")
        let result: ReadResult
        do {
            result = try await reader.read { event in
                switch event.phase {
                case .connecting: recorder.mark("EF.CardAccess")
                case .accessControl: recorder.mark("access-control")
                case .reading:
                    if let f = event.file {
                        recorder.mark(event.message.hasPrefix("reading ") ? "file:\(f.rawValue)" : "after")
                    }
                case .chipAuthentication: recorder.mark("chip-authentication")
                case .activeAuthentication: recorder.mark("active-authentication")
                case .done: recorder.mark("after")
                case .resuming: recorder.mark("resuming")
                case .verifying: recorder.mark("after")
                }
            }
        } catch {
            throw BenchFailure("\(benchCase.label): the read failed: \(error.description)")
        }
        recorder.mark("end")
        let store = override ?? trustStore
        let v0 = BenchClock.cpuNanoseconds()
        let verification = DocumentVerifier.verify(result, trustStore: store, validationTime: .now)
        // (one clock read's cost lies between the two readings)
        let verifyNs = UInt64(max(0, Double(BenchClock.cpuNanoseconds() &- v0) - BenchClock.cpuClockReadNanoseconds))

        let marks = chip.marks
        var sample = ReadRunSample(
            result: result, verification: verification, verifyNanoseconds: verifyNs,
            total: marks.last!.counters - marks.first!.counters)
        for i in 0..<(marks.count - 1) {
            let m = marks[i]
            let next = marks[i + 1]
            let c = next.counters - m.counters
            let cpu = next.cpu &- m.cpu
            var label = m.label
            if label == "start" || label == "after" || label == "end" {
                // between phases: the SELECT of the eMRTD application after PACE, or the engine's own work
                // (parsing EF.SOD for the plan, building the result)
                label = "engine-other"
            }
            sample.add(label, c, cpu: cpu)
        }
        return sample
    }
}

/// A row of the table: one phase of one matrix cell, over N runs.
struct BenchRow: Sendable, Codable {
    var profile: String
    var apduMode: String
    var dg2Bytes: Int
    var phase: String
    var apdus: Int
    var apduFloor: Int
    var smAPDUs: Int
    var bytesSent: Int
    var bytesReceived: Int
    /// Engine CPU (the virtual chip's excluded): median, min, max over the runs.
    var cpuMs: Double
    var cpuMsMin: Double
    var cpuMsMax: Double
    /// The virtual chip's own CPU (median).
    var chipCpuMs: Double
    /// The cost of the OpenSSL primitives the phase needs.
    var cpuFloorMs: Double
    /// cpuMs / cpuFloorMs (nil when the floor is 0).
    var cpuRatio: Double?
    var modelledMs: Double
    var modelledFloorMs: Double
    var note: String?
}

/// Builds the rows of one matrix cell from N runs.
struct CaseAnalysis {
    var prepared: PreparedDocument
    var samples: [ReadRunSample]
    var costs: PrimitiveCosts
    var link: LinkModel

    var spec: ProfileSpec { prepared.generated.spec }
    var result: ReadResult { samples.last!.result }
    var cipher: CipherAlgorithm { result.accessControl.cipher }

    /// The largest READ BINARY plaintext one APDU can bring back under SM (or plain).
    func maxChunk(secure: Bool) -> Int {
        let c: CipherAlgorithm? = secure ? cipher : nil
        if prepared.benchCase.extended {
            // Ne ≤ 65536: DO'87' header (5) + DO'99' (4) + DO'8E' (10) around at least one byte of padding
            guard let c else { return 65536 }
            return ((65536 - 19) / c.blockSize) * c.blockSize - 1
        }
        guard let c else { return 256 }
        return SecureMessagingSession.maxShortResponsePlaintext(cipher: c)
    }

    /// Fewest APDUs and the primitive cost of one phase, with a note on what the floor counts.
    func floor(_ phase: String, _ c: ChipCounters) -> (apdus: Int, cpuNs: Double, note: String?) {
        let sm = costs.secureMessaging(c, cipher: cipher)
        let ac = result.accessControl
        switch phase {
        case "EF.CardAccess":
            let size = result.files[.cardAccess]?.count ?? 0
            return (
                max(1, (size + maxChunk(secure: false) - 1) / maxChunk(secure: false)), 0,
                size == 0 ? "no EF.CardAccess: one READ BINARY answers 6A82" : nil
            )
        case "access-control":
            if ac.protocol == .bac {
                // GET CHALLENGE, EXTERNAL AUTHENTICATE (the SELECT of the application is its own row)
                let ns =
                    2 * (costs.cbc[.tripleDES]?.cost(32) ?? 0) + 2 * (costs.mac[.tripleDES]?.cost(40) ?? 0) + 5
                    * costs.sha1.cost(40)
                return (2, ns, "BAC: GET CHALLENGE + EXTERNAL AUTHENTICATE")
            }
            // MSE:Set AT + 4 GENERAL AUTHENTICATE (GM, IM, CAM alike)
            var ns =
                (costs.cbc[ac.cipher]?.cost(16) ?? 0) + 2 * (costs.mac[ac.cipher]?.cost(80) ?? 0) + 3
                * costs.kdf(ac.cipher)
            let curve = paceCurve
            switch (ac.mapping, ac.keyAgreement) {
            case (.integratedMapping?, .ecdh?):
                // ephemeral key pair on the mapped generator, shared secret; the point encoding is not counted
                ns += 2 * (costs.ecMultiply[curve] ?? 0) + 4 * (costs.cbc[ac.cipher]?.cost(32) ?? 0)
            case (_, .dh?):
                ns += 5 * costs.dhModExp1024
            default:
                // GM/CAM: x·G, x·PK, s·G (+H), y·G', y·PK'
                ns += 2 * (costs.ecMultiplyGenerator[curve] ?? 0) + 3 * (costs.ecMultiply[curve] ?? 0)
                if ac.mapping == .chipAuthenticationMapping { ns += costs.cbc[ac.cipher]?.cost(48) ?? 0 }
            }
            return (
                5, ns,
                "PACE \(ac.mapping?.rawValue ?? "") \(ac.keyAgreement?.rawValue ?? ""): MSE:Set AT + 4 GENERAL AUTHENTICATE"
            )
        case "select-application":
            return (1, sm, "SELECT of the eMRTD application (plain before BAC, under SM after PACE)")
        case "chip-authentication":
            guard let ca = spec.chipAuthentication else { return (0, sm, nil) }
            var ns = sm + 2 * costs.kdf(ca.cipher)
            switch ca.group {
            case .ec(let curve, _): ns += (costs.ecMultiplyGenerator[curve] ?? 0) + (costs.ecMultiply[curve] ?? 0)
            case .dh: ns += 2 * costs.dhModExp1024
            }
            return (
                ca.cipher == .tripleDES ? 1 : 2, ns,
                ca.cipher == .tripleDES ? "CA 3DES: MSE:Set KAT" : "CA AES: MSE:Set AT + GENERAL AUTHENTICATE"
            )
        case "active-authentication":
            var ns = sm
            switch spec.activeAuthentication {
            case .rsa?: ns += costs.rsa1024Public + costs.sha1.cost(128)
            case .ecdsa(let curve, _)?:
                ns += curve == .brainpoolP256r1 ? costs.ecdsaVerifyBrainpool : costs.ecdsaVerifyP256
            case nil: break
            }
            return (1, ns, "INTERNAL AUTHENTICATE")
        case "engine-other", "resuming":
            return (0, 0, phase == "engine-other" ? "parsing EF.SOD/EF.COM for the plan, building the result" : nil)
        default:
            if phase.hasPrefix("file:"), let f = LDSFile(rawValue: String(phase.dropFirst(5))) {
                if f == .cardSecurity && ac.mapping != .chipAuthenticationMapping {
                    // nothing needs EF.CardSecurity without PACE-CAM: any READ BINARY of it is above the floor
                    return (0, 0, "EF.CardSecurity is needed only for PACE-CAM")
                }
                let size = result.files[f]?.count ?? 0
                let chunk = maxChunk(secure: true)
                // READ BINARY (B0) offsets stop at 32767 (P1-P2, 15 bits); beyond, odd-INS READ BINARY (B1) wraps the
                // data in DO'53' (ISO/IEC 7816-4 §7.2.3), whose header (tag + BER length) takes room from each chunk
                let header = chunk - 2 < 128 ? 2 : chunk - 3 < 256 ? 3 : 4
                var n = 0
                var offset = 0
                while offset < size || n == 0 {
                    n += 1
                    offset += offset <= 0x7FFF ? chunk : chunk - header
                }
                return (
                    n, sm,
                    "\(size) bytes, \(chunk)-byte chunks\(size > 0x7FFF + chunk && !prepared.benchCase.extended ? " (DO'53' beyond 32 KB)" : "")"
                )
            }
            return (0, sm, nil)
        }
    }

    var paceCurve: NamedCurve {
        if let p = spec.pace, let c = StandardDomainParameters.namedCurve(id: p.parameterId) { return c }
        return .secp256r1
    }

    /// Passive authentication: SHA-256 over every data group, two ECDSA P-256 verifications (SOD signature, document
    /// signer certificate; the generated test PKI signs with P-256); when EF.CardSecurity was read, its signature
    /// (verified by the cardSecuritySignature check); for PACE-CAM also CA·PK_IC; and the Active Authentication
    /// signature, which `DocumentVerifier` verifies again from the transcript (the row is the whole verification).
    var passiveAuthenticationFloor: Double {
        var ns = 0.0
        for (f, b) in result.files where f.dataGroupNumber != nil { ns += costs.sha256.cost(b.count) }
        ns += costs.sha256.cost(200) + 2 * costs.ecdsaVerifyP256
        if let cardSecurity = result.files[.cardSecurity], !cardSecurity.isEmpty {
            ns += costs.ecdsaVerifyP256 + costs.sha256.cost(cardSecurity.count)
        }
        if result.chipAuthenticationMapping != nil { ns += costs.ecMultiply[paceCurve] ?? 0 }
        // The verifier re-checks the Active Authentication transcript (so that a saved bundle verifies offline).
        if case .performed = result.activeAuthentication {
            switch spec.activeAuthentication {
            case .rsa?: ns += costs.rsa1024Public + costs.sha1.cost(128)
            case .ecdsa(let curve, _)?:
                ns += curve == .brainpoolP256r1 ? costs.ecdsaVerifyBrainpool : costs.ecdsaVerifyP256
            case nil: break
            }
        }
        return ns
    }

    func rows() -> [BenchRow] {
        let c = prepared.benchCase
        var rows: [BenchRow] = []
        var total = (
            apdus: 0, floorApdus: 0, sm: 0, sent: 0, received: 0, floorNs: 0.0, chip: 0.0, modelled: 0.0,
            modelledFloor: 0.0
        )
        // the engine's own work between phases last, beside passive authentication
        let seen = samples.last!.order
        let order = seen.filter { $0 != "engine-other" } + seen.filter { $0 == "engine-other" }
        for phase in order {
            let last = samples.last!.phases[phase]!
            let engine = Spread(samples.compactMap { $0.phases[phase]?.engineNanoseconds })
            let chip = Spread(samples.compactMap { $0.phases[phase]?.chipNanoseconds })
            let f = floor(phase, last.counters)
            let modelled = link.milliseconds(
                apdus: last.counters.apdus, bytes: last.counters.bytesSent + last.counters.bytesReceived,
                smAPDUs: last.counters.smAPDUs)
            // the floor's link time: the floor's APDU count with the bytes observed (payload dominates them)
            let modelledFloor = link.milliseconds(
                apdus: f.apdus, bytes: last.counters.bytesSent + last.counters.bytesReceived,
                smAPDUs: min(last.counters.smAPDUs, f.apdus))
            rows.append(
                BenchRow(
                    profile: c.profile, apduMode: c.apduMode, dg2Bytes: c.dg2Size, phase: phase,
                    apdus: last.counters.apdus, apduFloor: f.apdus, smAPDUs: last.counters.smAPDUs,
                    bytesSent: last.counters.bytesSent, bytesReceived: last.counters.bytesReceived,
                    cpuMs: r3(engine.median / 1e6), cpuMsMin: r3(engine.min / 1e6), cpuMsMax: r3(engine.max / 1e6),
                    chipCpuMs: r3(chip.median / 1e6), cpuFloorMs: r3(f.cpuNs / 1e6),
                    cpuRatio: f.cpuNs > 0 ? r3(engine.median / f.cpuNs) : nil,
                    modelledMs: r3(modelled), modelledFloorMs: r3(modelledFloor), note: f.note))
            total.apdus += last.counters.apdus
            total.floorApdus += f.apdus
            total.sm += last.counters.smAPDUs
            total.sent += last.counters.bytesSent
            total.received += last.counters.bytesReceived
            total.floorNs += f.cpuNs
            total.chip += chip.median
            total.modelled += modelled
            total.modelledFloor += modelledFloor
        }
        let pa = Spread(samples.map { Double($0.verifyNanoseconds) })
        let paFloor = passiveAuthenticationFloor
        rows.append(
            BenchRow(
                profile: c.profile, apduMode: c.apduMode, dg2Bytes: c.dg2Size, phase: "passive-authentication",
                apdus: 0, apduFloor: 0, smAPDUs: 0, bytesSent: 0, bytesReceived: 0,
                cpuMs: r3(pa.median / 1e6), cpuMsMin: r3(pa.min / 1e6), cpuMsMax: r3(pa.max / 1e6), chipCpuMs: 0,
                cpuFloorMs: r3(paFloor / 1e6), cpuRatio: paFloor > 0 ? r3(pa.median / paFloor) : nil,
                modelledMs: 0, modelledFloorMs: 0,
                note: "DocumentVerifier.verify: hashes, SOD and DS signatures, chain, CRL, clone-detection evidence"))
        let engineTotal = Spread(
            samples.map { s in s.phases.values.reduce(0.0) { $0 + $1.engineNanoseconds } + Double(s.verifyNanoseconds) }
        )
        let floorNs = total.floorNs + paFloor
        let status = samples.last!.verification.status.rawValue
        rows.append(
            BenchRow(
                profile: c.profile, apduMode: c.apduMode, dg2Bytes: c.dg2Size, phase: "total",
                apdus: total.apdus, apduFloor: total.floorApdus, smAPDUs: total.sm,
                bytesSent: total.sent, bytesReceived: total.received,
                cpuMs: r3(engineTotal.median / 1e6), cpuMsMin: r3(engineTotal.min / 1e6),
                cpuMsMax: r3(engineTotal.max / 1e6),
                chipCpuMs: r3(total.chip / 1e6), cpuFloorMs: r3(floorNs / 1e6),
                cpuRatio: floorNs > 0 ? r3(engineTotal.median / floorNs) : nil,
                modelledMs: r3(total.modelled), modelledFloorMs: r3(total.modelledFloor),
                note:
                    "verdict \(status); \(result.usedExtendedLength ? "extended" : "short") APDUs, chunk \(result.chunkSize)"
            ))
        return rows
    }
}
