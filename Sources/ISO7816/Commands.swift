/// Builders for the ISO/IEC 7816-4 commands an eMRTD reader sends (ICAO 9303-11 §§4–9).
extension CommandAPDU {
    /// SELECT by DF name (application identifier), no response data requested (P2 = '0C').
    public static func selectApplication(_ aid: [UInt8]) -> CommandAPDU {
        CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: aid)
    }

    /// SELECT an EF under the current DF by file identifier, no FCI (P2 = '0C').
    public static func selectFile(_ fid: UInt16) -> CommandAPDU {
        CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [UInt8(fid >> 8), UInt8(fid & 0xFF)])
    }

    /// SELECT the master file (P1 = '00', no data) — used before reading EF.CardAccess / EF.ATR/INFO.
    public static func selectMasterFile() -> CommandAPDU {
        CommandAPDU(ins: 0xA4, p1: 0x00, p2: 0x0C, data: [0x3F, 0x00])
    }

    /// READ BINARY of the current EF at `offset` (0...32767).
    public static func readBinary(offset: Int, ne: Int) -> CommandAPDU {
        precondition((0...0x7FFF).contains(offset))
        return CommandAPDU(ins: 0xB0, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF), ne: ne)
    }

    /// READ BINARY with a short EF identifier (P1 = '80' | SFI, P2 = offset 0...255); selects the EF implicitly.
    public static func readBinary(sfi: UInt8, offset: Int, ne: Int) -> CommandAPDU {
        precondition(sfi > 0 && sfi < 31 && (0...255).contains(offset))
        return CommandAPDU(ins: 0xB0, p1: 0x80 | sfi, p2: UInt8(offset), ne: ne)
    }

    /// READ BINARY with odd INS ('B1'): the offset in DO'54', for offsets above 32767.
    public static func readBinaryOdd(offset: Int, ne: Int) -> CommandAPDU {
        var o: [UInt8] = []
        var v = offset
        repeat {
            o.insert(UInt8(v & 0xFF), at: 0)
            v >>= 8
        } while v > 0
        return CommandAPDU(ins: 0xB1, p1: 0x00, p2: 0x00, data: [0x54, UInt8(o.count)] + o, ne: ne)
    }

    /// GET CHALLENGE for `length` bytes.
    public static func getChallenge(length: Int = 8) -> CommandAPDU {
        CommandAPDU(ins: 0x84, p1: 0x00, p2: 0x00, ne: length)
    }

    /// EXTERNAL AUTHENTICATE / MUTUAL AUTHENTICATE ('82') with data, Ne bytes expected back.
    public static func externalAuthenticate(_ data: [UInt8], ne: Int?) -> CommandAPDU {
        CommandAPDU(ins: 0x82, p1: 0x00, p2: 0x00, data: data, ne: ne)
    }

    /// INTERNAL AUTHENTICATE ('88') — active authentication.
    public static func internalAuthenticate(_ challenge: [UInt8], ne: Int) -> CommandAPDU {
        CommandAPDU(ins: 0x88, p1: 0x00, p2: 0x00, data: challenge, ne: ne)
    }

    /// MANAGE SECURITY ENVIRONMENT ('22') with P1-P2 and data objects.
    public static func manageSecurityEnvironment(p1: UInt8, p2: UInt8, data: [UInt8]) -> CommandAPDU {
        CommandAPDU(ins: 0x22, p1: p1, p2: p2, data: data)
    }

    /// GENERAL AUTHENTICATE ('86') with DO'7C' data; `chained` sets CLA bit 5 (more commands follow).
    public static func generalAuthenticate(_ data: [UInt8], chained: Bool, ne: Int? = 256) -> CommandAPDU {
        CommandAPDU(cla: chained ? 0x10 : 0x00, ins: 0x86, p1: 0x00, p2: 0x00, data: data, ne: ne)
    }

    /// GET RESPONSE ('C0') for `ne` bytes.
    public static func getResponse(ne: Int) -> CommandAPDU {
        CommandAPDU(ins: 0xC0, p1: 0x00, p2: 0x00, ne: ne)
    }
}

/// Well-known identifiers of ICAO 9303-10.
public enum MRTDApplication {
    /// LDS1 eMRTD application: A0 00 00 02 47 10 01.
    public static let lds1AID: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
}
