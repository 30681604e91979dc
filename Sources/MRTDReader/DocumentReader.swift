import ASN1TLV
import Dispatch
public import ISO7816
import MRTDAccessControl
import MRTDCrypto
import MRTDDocument
import MRTDSecureMessaging
import Synchronization

/// Reads an eMRTD: access control (PACE preferred, BAC when allowed), then the files of the read plan in
/// as few APDUs as the path allows, Chip Authentication (DG14) and Active Authentication (DG15). A read
/// interrupted by the card leaving the field resumes where it stopped once the card is back, re-running
/// access control; bytes already read are kept and never read twice.
///
/// Not tied to PC/SC: any `CardTransport` (a reader, the in-process virtual chip, a replay) will do.
public struct DocumentReader: Sendable {
    public let transport: any CardTransport
    public var options: ReadOptions
    public var trace: APDUTrace?

    public init(transport: any CardTransport, options: ReadOptions, trace: APDUTrace? = nil) {
        self.transport = transport
        self.options = options
        self.trace = trace
    }

    /// Reads the document. `progress` is called from the reading task (keep it quick).
    public func read(progress: (@Sendable (ReadEvent) -> Void)? = nil) async throws(ReadError) -> ReadResult {
        var run = ReadRun(
            transport: MeteredTransport(transport, trace: trace), options: options,
            progress: progress ?? { _ in })
        return try await run.execute()
    }
}

/// One read's mutable state (kept across resumptions).
struct ReadRun {
    let metered: MeteredTransport
    let options: ReadOptions
    let progress: @Sendable (ReadEvent) -> Void
    let started = DispatchTime.now().uptimeNanoseconds

    var partials: [LDSFile: PartialFile] = [:]
    var unread: [LDSFile: FileReadOutcome] = [:]
    var cardAccess: SecurityInfos?
    var cardAccessChecked = false
    var facts: AccessControlFacts?
    var cam: PACEChipAuthenticationMappingData?
    var chipAuthentication: ChipAuthenticationOutcome = .notAvailable
    var caParameters: ChipAuthentication.Parameters?
    var caDone = false
    var activeAuthentication: ActiveAuthenticationOutcome = .notAvailable
    var aaDone = false
    var plan: [LDSFile]? = nil
    /// DG14 parsed once (for Chip Authentication and for Active Authentication's signature algorithm).
    var dg14Infos: SecurityInfos?
    var dg14Parsed = false
    var resumptions = 0
    var resumed: Set<LDSFile> = []
    var capabilities = TransportCapabilities.shortOnly
    var chipExtended: Bool? = nil
    var usedExtended = false
    var chunkSize = 0
    var useSFI = true
    var phaseStats: [ReadPhase: TransportStatistics] = [:]
    var lastSnapshot = TransportStatistics()

    init(transport: MeteredTransport, options: ReadOptions, progress: @escaping @Sendable (ReadEvent) -> Void) {
        self.metered = transport
        self.options = options
        self.progress = progress
    }

    mutating func account(_ phase: ReadPhase) {
        // acc += now - lastSnapshot, without building the difference (same entries, zero deltas included)
        let now = metered.statistics
        var acc = phaseStats.removeValue(forKey: phase) ?? TransportStatistics()
        acc.apdus += now.apdus - lastSnapshot.apdus
        acc.bytesSent += now.bytesSent - lastSnapshot.bytesSent
        acc.bytesReceived += now.bytesReceived - lastSnapshot.bytesReceived
        acc.nanoseconds &+= now.nanoseconds &- lastSnapshot.nanoseconds
        for (k, v) in now.apdusByInstruction {
            acc.apdusByInstruction[k, default: 0] += v - (lastSnapshot.apdusByInstruction[k] ?? 0)
        }
        lastSnapshot = now
        phaseStats[phase] = acc
    }

    mutating func execute() async throws(ReadError) -> ReadResult {
        progress(ReadEvent(phase: .connecting, message: "connecting to \(metered.name)"))
        capabilities = await metered.capabilities
        while true {
            do {
                try await session()
                break
            } catch let e as AccessControlError {
                throw .accessControl(e)
            } catch let e as ReadError {
                throw e
            } catch {
                // Transport failure or lost secure-messaging session: wait for the card and resume.
                let transportError: TransportError
                if let t = error as? TransportError {
                    guard t.isRecoverableByRepresenting else { throw .transport(t, resumptions: resumptions) }
                    transportError = t
                } else if error is SecureMessagingError {
                    transportError = TransportError(
                        .protocolError, function: "secure messaging", "the secure-messaging session was lost")
                } else {
                    throw .chip(String(describing: error))
                }
                guard resumptions < options.maxResumptions else {
                    throw .transport(transportError, resumptions: resumptions)
                }
                resumptions += 1
                // a lost secure-messaging session needs no action from the holder; a link failure usually means the
                // document left the field (pcscd may report it as a card removal or as an answer without status word)
                let hint =
                    error is SecureMessagingError
                    ? "; starting a new session" : "; present the document again to continue"
                progress(ReadEvent(phase: .resuming, message: transportError.message + hint))
                do {
                    try await metered.reconnect(reset: true, timeout: options.representTimeout)
                } catch let t as TransportError {
                    throw .transport(t, resumptions: resumptions)
                } catch {
                    throw .transport(
                        TransportError(.other, function: "reconnect", String(describing: error)),
                        resumptions: resumptions)
                }
                account(.resuming)
            }
        }
        progress(ReadEvent(phase: .done, message: "read complete"))
        return result()
    }

    // MARK: - One session (from power-up to the end, or to an interruption)

    /// One card session, in the order of docs/reader.md ("Order of a read"); each step skips what an earlier
    /// session of this read already did, so a resumed read goes on where it stopped.
    mutating func session() async throws {
        if !cardAccessChecked {
            try await readCardAccess()  // 1. EF.CardAccess, doubling as the extended-length probe
            account(.reading)
        }
        let ac = try await establishAccessControl()  // 2. PACE or BAC
        let channel = SecureChannel(transport: metered, session: ac.session)
        var reader = FileReader(useSFI: useSFI, chunk: chunkPolicy(cipher: ac.cipher))
        usedExtended = reader.chunk.extended
        defer {
            useSFI = reader.useSFI
            chunkSize = reader.chunk.current
        }
        try await readCardSecurity(after: ac, reader: &reader, channel: channel)  // 3.
        try await selectApplication(after: ac, channel: channel)  // 4.
        try await readCOMAndSOD(reader: &reader, channel: channel)  // 5. they give the plan
        let caJustRan = try await readDG14AndAuthenticateChip(reader: &reader, channel: channel)  // 6.
        try await readRemainingFiles(reader: &reader, channel: channel, caJustRan: caJustRan)  // 7.
        if !aaDone {
            try await activeAuthenticate(channel: channel)  // 7. Active Authentication, once per read
            aaDone = true
        }
    }

    /// Step 2: access control, with the facts the report states about it.
    mutating func establishAccessControl() async throws -> AccessControlResult {
        progress(ReadEvent(phase: .accessControl, message: cardAccess.map { _ in "PACE" } ?? "BAC"))
        // BAC whenever PACE cannot run, unless forbidden: whether that (or a weaker PACE) was a downgrade is judged
        // against DG14 once passive authentication has checked it (the verifier's `downgrade` check)
        let ac = try await AccessControl.establish(
            transport: metered, key: options.accessKey, cardAccess: cardAccess,
            allowBACFallback: !options.forbidBAC, random: options.random)
        facts = AccessControlFacts(
            protocol: ac.protocol, passwordType: ac.passwordType, mapping: ac.mapping,
            keyAgreement: ac.keyAgreement, cipher: ac.cipher, parameterId: ac.parameterId,
            protocolOID: ac.protocolOID, fellBackToBAC: ac.fellBackToBAC)
        if let c = ac.pace?.chipAuthenticationMapping { cam = c }
        account(.accessControl)
        return ac
    }

    /// How much one READ BINARY asks for under this session's cipher and the link's capabilities.
    func chunkPolicy(cipher: CipherAlgorithm) -> ChunkPolicy {
        if let fixed = options.fixedChunkSize { return ChunkPolicy(fixed: fixed, extended: fixed > 256) }
        let extended = (chipExtended ?? false) && capabilities.supportsExtendedLength && options.allowExtendedLength
        return ChunkPolicy(cipher: cipher, extended: extended, maxResponseSize: capabilities.maxResponseSize)
    }

    /// Step 3: EF.CardSecurity (master file, under SM) after PACE, when PACE-CAM needs its public key (or the
    /// caller asked for the file): without CAM nothing uses it, and chips without CAM often have none (6A82).
    mutating func readCardSecurity(
        after ac: AccessControlResult, reader: inout FileReader, channel: SecureChannel
    ) async throws {
        guard ac.protocol == .pace && wants(.cardSecurity) && !isDone(.cardSecurity) else { return }
        var selected = false
        try await readFile(.cardSecurity, reader: &reader, channel: .secure(channel), selected: &selected)
    }

    /// Step 4: the eMRTD application (BAC runs inside it already: AccessControl selected it before GET CHALLENGE).
    func selectApplication(after ac: AccessControlResult, channel: SecureChannel) async throws {
        guard ac.protocol == .pace else { return }
        let select = try await channel.transmit(.selectApplication(MRTDApplication.lds1AID))
        guard select.statusWord.isSuccess else {
            throw ReadError.chip("SELECT of the eMRTD application answered \(select.statusWord)")
        }
    }

    /// Step 5: EF.COM and EF.SOD, then the plan they give.
    mutating func readCOMAndSOD(reader: inout FileReader, channel: SecureChannel) async throws {
        for f in [LDSFile.com, .sod] where wants(f) && !isDone(f) {
            var selected = false
            try await readFile(f, reader: &reader, channel: .secure(channel), selected: &selected)
        }
        if plan == nil { plan = makePlan() }
    }

    /// Step 6: DG14 then Chip Authentication, so that every later read proves it. Returns whether CA has just
    /// succeeded in this session (the next protected exchange is its proof).
    mutating func readDG14AndAuthenticateChip(reader: inout FileReader, channel: SecureChannel) async throws -> Bool {
        if plan!.contains(.dg14) && !isDone(.dg14) {
            var selected = false
            try await readFile(.dg14, reader: &reader, channel: .secure(channel), selected: &selected)
        }
        if !caDone {
            // done only once it returns: a card pulled during CA runs it again in the resumed session (else the
            // read would end with CA never run, which the verdict counts as an offered mechanism not proven)
            try await chipAuthenticate(channel: channel)
            caDone = true
            if case .succeeded = chipAuthentication { return true }
        } else if case .succeeded = chipAuthentication, let p = caParameters {
            // resumed session: run CA again so that the rest of the read stays under the chip-authenticated keys
            _ = try await ChipAuthentication.performAndInstall(channel: channel, parameters: p, random: options.random)
            account(.chipAuthentication)
        }
        return false
    }

    /// Step 7: the remaining files. The first protected exchange after Chip Authentication proves it; a chip
    /// that cannot continue under CA's keys does not hold DG14's private key.
    mutating func readRemainingFiles(reader: inout FileReader, channel: SecureChannel, caJustRan: Bool) async throws {
        var caJustRan = caJustRan
        for f in plan! where !isDone(f) && unread[f] == nil {
            var selected = false
            do {
                try await readFile(f, reader: &reader, channel: .secure(channel), selected: &selected)
            } catch let e as SecureMessagingError where caJustRan {
                // Record it and go on in a new session without CA.
                chipAuthentication = .failed(
                    "the chip could not continue secure messaging after Chip Authentication (\(e.code.rawValue))")
                throw e
            }
            caJustRan = false
        }
        guard caJustRan else { return }
        // Nothing left to read: prove CA with one protected command.
        do {
            let r = try await channel.transmit(.selectApplication(MRTDApplication.lds1AID))
            if !r.statusWord.isSuccess {
                chipAuthentication = .failed("the chip answered \(r.statusWord) after Chip Authentication")
            }
        } catch let e as SecureMessagingError {
            chipAuthentication = .failed(
                "the chip could not continue secure messaging after Chip Authentication (\(e.code.rawValue))")
            throw e
        }
    }

    func wants(_ f: LDSFile) -> Bool {
        if f == .sod || f == .cardAccess { return true }
        if f == .cardSecurity { return options.files?.contains(.cardSecurity) ?? (cam != nil) }
        guard let chosen = options.files else { return f != .dg3 && f != .dg4 }
        return chosen.contains(f)
    }

    func isDone(_ f: LDSFile) -> Bool { partials[f]?.isComplete ?? false || unread[f] != nil }

    /// Files to read after COM and SOD: what the SOD (and EF.COM) list, or what the caller chose.
    func makePlan() -> [LDSFile] {
        var listed = Set<LDSFile>()
        if let sod = partials[.sod].flatMap({ $0.isComplete ? try? SODFile(bytes: $0.bytes) : nil }) {
            for n in sod.ldsSecurityObject.dataGroupNumbers { if let f = LDSFile(dataGroup: n) { listed.insert(f) } }
        }
        if let com = partials[.com].flatMap({ $0.isComplete ? try? COMFile(bytes: $0.bytes) : nil }) {
            for f in com.dataGroups { listed.insert(f) }
        }
        if let chosen = options.files {
            listed = chosen.filter { $0.dataGroupNumber != nil }
        } else {
            listed.remove(.dg3)
            listed.remove(.dg4)
        }
        return listed.sorted()
    }

    mutating func readCardAccess() async throws {
        var p = PartialFile(file: .cardAccess)
        var selected = false
        // What the ATR's card capabilities say (ISO/IEC 7816-4 §8.1.1.2.7); nil when it says nothing.
        let atrExtended = (try? await metered.atr).flatMap { ATR($0) }?.supportsExtendedLength
        if capabilities.supportsExtendedLength && options.allowExtendedLength && atrExtended != false {
            // Extended-length probe and read in one: READ BINARY of EF.CardAccess by short EF identifier with an
            // extended Le. A chip that answers with data takes extended APDUs (and the reader path carried it);
            // 6700 (or any refusal) means short APDUs. Not sent when the reader path or the ATR already says no:
            // then the first APDU is a short READ BINARY.
            let probe = CommandAPDU(ins: 0xB0, p1: 0x80 | LDSFile.cardAccess.sfi, p2: 0, ne: 65536, forceExtended: true)
            var answer: ResponseAPDU? = nil
            do {
                answer = try await metered.transmitCollectingChainedResponse(probe)
                if let r = answer, r.statusWord.isWrongLe {
                    // 6Cxx: the chip took the extended APDU and names the exact length; ask for exactly that
                    p.apdus += 1
                    var exact = probe
                    exact.ne = r.statusWord.sw2 == 0 ? 256 : Int(r.statusWord.sw2)
                    answer = try await metered.transmitCollectingChainedResponse(exact)
                }
            } catch let e as TransportError where e.kind == .protocolError || e.kind == .other {
                // The reader path choked on the extended APDU: use short APDUs from now on.
                try await metered.reconnect(reset: true, timeout: options.representTimeout)
            }
            p.apdus += 1
            if let r = answer {
                switch r.statusWord {
                case .success where !r.data.isEmpty, .endOfFileReached where !r.data.isEmpty:
                    chipExtended = true
                    if let h = try? TLVParser.peekHeader(r.data[...]), let len = h.valueLength {
                        p.totalLength = h.headerLength + len
                        p.bytes = Array(r.data.prefix(h.headerLength + len))
                        selected = true
                    }
                case .fileNotFound:
                    chipExtended = atrExtended ?? false
                    unread[.cardAccess] = .notFound
                    cardAccessChecked = true
                    return
                default:
                    chipExtended = false
                }
            } else {
                chipExtended = false
            }
        }
        var reader = FileReader(
            useSFI: true,
            chunk: ChunkPolicy(
                cipher: nil, extended: chipExtended == true, maxResponseSize: capabilities.maxResponseSize))
        let outcome =
            p.isComplete ? .complete : try await reader.read(&p, channel: .plain(metered), selected: &selected)
        if outcome == .complete {
            finish(p)
            cardAccess = try? SecurityInfos.parseCardAccess(p.bytes)
        } else {
            unread[.cardAccess] = outcome
        }
        if chipExtended == nil { chipExtended = atrExtended ?? false }
        cardAccessChecked = true
    }

    mutating func readFile(_ f: LDSFile, reader: inout FileReader, channel: APDUChannel, selected: inout Bool)
        async throws
    {
        var p = partials[f] ?? PartialFile(file: f)
        if !p.bytes.isEmpty && !p.isComplete {
            p.resumptions += 1
            resumed.insert(f)
        }
        progress(
            ReadEvent(
                phase: .reading, file: f, bytesDone: p.bytes.count, bytesTotal: p.totalLength,
                message: "reading \(f.rawValue)"))
        let outcome: FileReadOutcome
        do {
            outcome = try await reader.read(&p, channel: channel, selected: &selected)
        } catch {
            partials[f] = p
            account(.reading)
            throw error
        }
        partials[f] = p
        account(.reading)
        switch outcome {
        case .complete:
            progress(
                ReadEvent(
                    phase: .reading, file: f, bytesDone: p.bytes.count, bytesTotal: p.totalLength,
                    message: "read \(f.rawValue)"))
            options.fileCompleted?(f, p.bytes)
        case .accessDenied, .notFound:
            unread[f] = outcome
        case .failed(let sw):
            unread[f] = outcome
            if f == .sod { throw ReadError.chip("reading EF.SOD failed with \(sw)") }
        }
    }

    mutating func finish(_ p: PartialFile) { partials[p.file] = p }

    /// DG14's SecurityInfos, parsed on first use once the file is complete; nil when absent or unparsable.
    mutating func parsedDG14() -> SecurityInfos? {
        if !dg14Parsed, let dg14 = partials[.dg14], dg14.isComplete {
            dg14Infos = try? SecurityInfos.parseDG14(dg14.bytes)
            dg14Parsed = true
        }
        return dg14Infos
    }

    mutating func chipAuthenticate(channel: SecureChannel) async throws {
        guard let infos = parsedDG14() else {
            chipAuthentication = cam != nil ? .notPerformed("PACE-CAM authenticated the chip") : .notAvailable
            return
        }
        guard let params = try? ChipAuthentication.parameters(from: infos) else {
            chipAuthentication = cam != nil ? .notPerformed("PACE-CAM authenticated the chip") : .notAvailable
            return
        }
        if cam != nil {
            chipAuthentication = .notPerformed("PACE-CAM authenticated the chip")
            return
        }
        guard options.performChipAuthentication else {
            chipAuthentication = .notPerformed("disabled")
            return
        }
        progress(ReadEvent(phase: .chipAuthentication, message: "chip authentication"))
        do {
            _ = try await ChipAuthentication.performAndInstall(
                channel: channel, parameters: params, random: options.random)
            caParameters = params
            chipAuthentication = .succeeded(protocolName: params.protocolName, keyId: params.keyId)
        } catch let e as AccessControlError {
            chipAuthentication = .failed("\(e.step): \(e.reason)")
        }
        account(.chipAuthentication)
    }

    mutating func activeAuthenticate(channel: SecureChannel) async throws {
        guard let dg15 = partials[.dg15], dg15.isComplete else {
            activeAuthentication = .notAvailable
            return
        }
        guard options.performActiveAuthentication else {
            activeAuthentication = .notPerformed("disabled")
            return
        }
        progress(ReadEvent(phase: .activeAuthentication, message: "active authentication"))
        let aaInfo = parsedDG14()?.activeAuthenticationInfo
        do {
            let (t, v) = try await ActiveAuthentication.perform(
                channel: channel, dg15: dg15.bytes, activeAuthenticationInfo: aaInfo,
                challenge: options.activeAuthenticationChallenge, random: options.random)
            activeAuthentication = .performed(t, v)
        } catch let e as AccessControlError {
            activeAuthentication = .failed("\(e.step): \(e.reason)")
        }
        account(.activeAuthentication)
    }

    func result() -> ReadResult {
        var files: [LDSFile: [UInt8]] = [:]
        var ff: [LDSFile: FileFacts] = [:]
        for (f, p) in partials where p.isComplete {
            files[f] = p.bytes
            ff[f] = FileFacts(
                file: f, size: p.bytes.count, apdus: p.apdus, milliseconds: Double(p.nanoseconds) / 1e6,
                resumptions: p.resumptions)
        }
        // fellBackToBAC: EF.CardAccess (AccessControl) or DG14 as read lists PACE; the verifier decides with DG14
        // hash-checked
        var ac = facts!
        if ac.protocol == .bac, let dg14 = dg14Infos, !AccessControl.usablePACE(dg14).isEmpty {
            ac.fellBackToBAC = true
        }
        return ReadResult(
            files: files, fileFacts: ff, unreadFiles: unread, accessControl: ac,
            downgradeAccepted: options.allowBACFallback,
            chipAuthenticationMapping: cam, chipAuthentication: chipAuthentication,
            activeAuthentication: activeAuthentication, resumedFiles: resumed.sorted(),
            resumptions: resumptions, usedExtendedLength: usedExtended, chunkSize: chunkSize,
            readerName: metered.name, capabilities: capabilities, statistics: metered.statistics,
            phaseStatistics: phaseStats,
            elapsedMilliseconds: Double(DispatchTime.now().uptimeNanoseconds &- started) / 1e6)
    }
}
