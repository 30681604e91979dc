import ASN1TLV
import ISO7816
import MRTDDocument
import MRTDSecureMessaging

/// The file system of the chip (ICAO 9303-10 §3.11 and §4.6): the master file with EF.CardAccess,
/// EF.CardSecurity and EF.ATR/INFO, and the LDS1 eMRTD application with EF.COM, EF.SOD and the
/// data groups. SELECT and READ BINARY as in ISO/IEC 7816-4 §11.2.2 and §11.3.3.
extension ChipEngine {
    /// Files visible in the current DF. EF.CardAccess and EF.ATR/INFO stay reachable from the
    /// application as well (by FID or SFI), as on most issued chips; EF.SOD's identifiers (011D, SFI 1D)
    /// shadow EF.CardSecurity's inside the application, and DG1's SFI shadows EF.ATR/INFO's.
    func lookup(fid: UInt16) -> LDSFile? {
        let inDF = profile.files.keys.filter { $0.isInMasterFile == (df == .masterFile) }
        if let f = inDF.first(where: { $0.fid == fid }) { return f }
        if df == .lds1,
            let f = profile.files.keys.first(where: { $0.isInMasterFile && $0 != .cardSecurity && $0.fid == fid })
        {
            return f
        }
        return nil
    }

    func lookup(sfi: UInt8) -> LDSFile? {
        let inDF = profile.files.keys.filter { $0.isInMasterFile == (df == .masterFile) }
        if let f = inDF.first(where: { $0.sfi == sfi }) { return f }
        if df == .lds1,
            let f = profile.files.keys.first(where: { $0.isInMasterFile && $0 != .cardSecurity && $0.sfi == sfi })
        {
            return f
        }
        return nil
    }

    /// Access conditions (ICAO 9303-11 §4.2 and §4.4): EF.CardAccess and EF.ATR/INFO are free;
    /// every other file needs access control (and so secure messaging). DG3 and DG4 (fingerprints,
    /// iris) are protected by Extended Access Control (Terminal Authentication, BSI TR-03110), which
    /// this chip does not offer: they always answer 6982, as on a real chip to an unauthorised terminal.
    func checkReadAccess(_ file: LDSFile) throws(ChipFailure) {
        switch file {
        case .cardAccess, .atrInfo: return
        case .dg3, .dg4: throw .securityStatus
        default: if !accessGranted { throw .securityStatus }
        }
    }

    // MARK: SELECT

    /// SELECT (ISO/IEC 7816-4 §11.2.2): P1 = 00 (MF / by FID), 02 (EF under the current DF),
    /// 04 (DF name = AID), 08 (path from the MF); P2 = 0C (no response data) or 00/04 (FCP).
    mutating func select(_ command: CommandAPDU) throws(ChipFailure) -> ResponseAPDU {
        let wantsFCP: Bool
        // P2 bits 4-3: response data (00 FCI, 01 FCP, 11 none); bits 2-1: first occurrence only.
        switch command.p2 {
        case 0x0C: wantsFCP = false
        case 0x00, 0x04: wantsFCP = true
        default: throw .incorrectP1P2
        }
        let data = command.data
        switch command.p1 {
        case 0x00 where data.isEmpty || data == [0x3F, 0x00]:
            df = .masterFile
            currentEF = nil
            return ResponseAPDU(data: wantsFCP ? dfFCP(fid: 0x3F00) : [], statusWord: .success)
        case 0x00, 0x02:
            guard data.count == 2 else { throw .wrongLength }
            let fid = UInt16(data[0]) << 8 | UInt16(data[1])
            guard let file = lookup(fid: fid) else { throw .fileNotFound }
            currentEF = file
            return ResponseAPDU(data: wantsFCP ? efFCP(file) : [], statusWord: .success)
        case 0x04:
            guard !data.isEmpty, data.count <= 16 else { throw .wrongLength }
            guard data == MRTDApplication.lds1AID else { throw .fileNotFound }
            df = .lds1
            currentEF = nil
            return ResponseAPDU(data: wantsFCP ? dfFCP(fid: nil) : [], statusWord: .success)
        case 0x08:
            guard data.count >= 2, data.count % 2 == 0 else { throw .wrongLength }
            guard data.count == 2 else { throw .fileNotFound }
            let fid = UInt16(data[0]) << 8 | UInt16(data[1])
            guard let file = profile.files.keys.first(where: { $0.isInMasterFile && $0.fid == fid }) else {
                throw .fileNotFound
            }
            df = .masterFile
            currentEF = file
            return ResponseAPDU(data: wantsFCP ? efFCP(file) : [], statusWord: .success)
        default:
            throw .incorrectP1P2
        }
    }

    /// File control parameters (ISO/IEC 7816-4 §7.4): '62' { '80' size, '82' descriptor, '83' FID }.
    private func efFCP(_ file: LDSFile) -> [UInt8] {
        let size = profile.files[file]?.count ?? 0
        let inner =
            DataObjects.encode(0x80, [UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)])
            + DataObjects.encode(0x82, [0x01])
            + DataObjects.encode(0x83, [UInt8(file.fid >> 8), UInt8(file.fid & 0xFF)])
        return DataObjects.encode(0x62, inner)
    }

    private func dfFCP(fid: UInt16?) -> [UInt8] {
        var inner = DataObjects.encode(0x82, [0x38])
        if let fid {
            inner += DataObjects.encode(0x83, [UInt8(fid >> 8), UInt8(fid & 0xFF)])
        } else {
            inner += DataObjects.encode(0x84, MRTDApplication.lds1AID)
        }
        return DataObjects.encode(0x62, inner)
    }

    // MARK: READ BINARY

    /// READ BINARY (ISO/IEC 7816-4 §11.3.3).
    /// - even INS 'B0': P1 bit 8 = 0: offset in P1-P2 (15 bits) of the current EF; P1 = '80' | SFI:
    ///   the EF with that short identifier becomes current, offset in P2.
    /// - odd INS 'B1': P1-P2 = 0000 (current EF), 00xx with xx ≤ 1F (SFI) or a file identifier;
    ///   the offset is in DO'54'; the data come back in DO'53' and Ne counts the whole DO.
    /// Ne: up to 256 (short) or 65536 (extended, only when the link supports it); the link's
    /// `maxReadLength` and, under short secure messaging, the plaintext that fits one protected short
    /// response, cap the answer. Status: 6B00 offset at or beyond the end, 6282 end of file reached
    /// before Ne bytes, 6982 before access control, 6A82 no such file, 6986 no current EF.
    mutating func readBinary(_ command: CommandAPDU, protected: Bool, outerExtended: Bool) throws(ChipFailure)
        -> ResponseAPDU
    {
        let odd = command.ins == 0xB1
        var file: LDSFile
        let offset: Int
        if odd {
            let p1p2 = UInt16(command.p1) << 8 | UInt16(command.p2)
            if p1p2 == 0 {
                guard let f = currentEF else { throw ChipFailure(.commandNotAllowed) }
                file = f
            } else if p1p2 <= 0x1F {
                guard profile.link.supportsSFI else { throw .functionNotSupported }
                guard let f = lookup(sfi: UInt8(p1p2)) else { throw .fileNotFound }
                file = f
            } else {
                guard let f = lookup(fid: p1p2) else { throw .fileNotFound }
                file = f
            }
            let objects = try DataObjects.parse(command.data)
            guard let o = objects[0x54], !o.isEmpty, let v = DataObjects.unsigned(o) else { throw .wrongData }
            offset = v
        } else if command.p1 & 0x80 != 0 {
            guard command.p1 & 0x60 == 0 else { throw .incorrectP1P2 }
            guard profile.link.supportsSFI else { throw .functionNotSupported }
            let sfi = command.p1 & 0x1F
            guard sfi != 0, let f = lookup(sfi: sfi) else { throw .fileNotFound }
            file = f
            offset = Int(command.p2)
        } else {
            guard let f = currentEF else { throw ChipFailure(.commandNotAllowed) }
            file = f
            offset = Int(command.p1) << 8 | Int(command.p2)
        }
        if !odd { guard command.data.isEmpty else { throw .wrongLength } }
        try checkReadAccess(file)
        currentEF = file
        guard let content = profile.files[file] else { throw .fileNotFound }
        guard let ne = command.ne else { throw .wrongLength }
        guard offset < content.count else { throw ChipFailure(.wrongParametersOffsetOutsideEF) }
        if faultyEmptyRead(offset: offset) { return ResponseAPDU(statusWord: .success) }

        // How many bytes of content may go into the response.
        var budget = ne
        if let cap = profile.link.maxReadLength { budget = min(budget, cap) }
        if protected, !outerExtended, let cipher = session?.cipher {
            budget = min(budget, SecureMessagingSession.maxShortResponsePlaintext(cipher: cipher))
        }
        let available = content.count - offset
        if odd {
            // DO'53' header counts against Ne.
            var n = min(available, budget)
            while n > 0 && n + 1 + TLVWriter.lengthCount(n) > budget { n -= 1 }
            n = faultyReadLength(n, offset: offset)
            guard n > 0 else { throw .wrongLength }
            let chunk = Array(content[offset..<(offset + n)])
            let data = DataObjects.encode(0x53, chunk)
            let endReached = n == available && data.count < ne
            return ResponseAPDU(data: data, statusWord: endReached ? .endOfFileReached : .success)
        } else {
            let n = faultyReadLength(min(available, budget), offset: offset)
            let chunk = Array(content[offset..<(offset + n)])
            let endReached = n == available && n < ne
            return ResponseAPDU(data: chunk, statusWord: endReached ? .endOfFileReached : .success)
        }
    }
}
