import ISO7816
import Testing

/// `ATR`: interface bytes, historical bytes, card capabilities (ISO/IEC 7816-3 §8.2, 7816-4 §8.1.1.2.7).
@Suite struct ATRTests {
    /// PC/SC part 3 contactless ATR: 3B 8n 80 01 <historical> TCK.
    static func contactless(_ historical: [UInt8]) -> [UInt8] {
        let body: [UInt8] = [0x80 | UInt8(historical.count), 0x80, 0x01] + historical
        return [0x3B] + body + [body.reduce(0, ^)]
    }

    @Test func cardCapabilitiesSayExtendedLength() throws {
        let yes = try #require(ATR(Self.contactless([0x80, 0x73, 0x00, 0x00, 0x40])))
        #expect(yes.historicalBytes == [0x80, 0x73, 0x00, 0x00, 0x40])
        #expect(yes.protocols == [0, 1])
        #expect(yes.cardCapabilities == [0x00, 0x00, 0x40])
        #expect(yes.supportsExtendedLength == true)
        #expect(yes.supportsCommandChaining == false)

        let no = try #require(ATR(Self.contactless([0x80, 0x73, 0x00, 0x00, 0x80])))
        #expect(no.supportsExtendedLength == false)
        #expect(no.supportsCommandChaining == true)
    }

    @Test func capabilitiesAmongOtherObjects() throws {
        // category 00: compact-TLV objects then three status bytes; a pre-issuing object '6x' first
        let atr = try #require(
            ATR(Self.contactless([0x00, 0x64, 1, 2, 3, 4, 0x73, 0xC0, 0x00, 0xC0, 0x05, 0x90, 0x00])))
        #expect(atr.compactTLVObjects.map(\.tag) == [0x6, 0x7])
        #expect(atr.supportsExtendedLength == true)
        #expect(atr.supportsCommandChaining == true)
    }

    @Test func silentATRsSayNothing() throws {
        // the virtual chip's default ATR: category 00, no card capabilities
        let plain = try #require(ATR([0x3B, 0x88, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09]))
        #expect(plain.supportsExtendedLength == nil)
        // only two software function bytes
        #expect(try #require(ATR(Self.contactless([0x80, 0x72, 0x00, 0x00]))).supportsExtendedLength == nil)
        // a proprietary category
        #expect(try #require(ATR(Self.contactless([0x4A, 0x43, 0x4F, 0x50]))).supportsExtendedLength == nil)
        // T=0 only, no interface bytes
        let t0 = try #require(ATR([0x3B, 0x02, 0x14, 0x50]))
        #expect(t0.protocols == [0])
        #expect(t0.historicalBytes == [0x14, 0x50])
    }

    @Test func malformedATRsAreRefused() {
        #expect(ATR([]) == nil)
        #expect(ATR([0x3B]) == nil)
        #expect(ATR([0x12, 0x00]) == nil)  // TS neither 3B nor 3F
        #expect(ATR([0x3B, 0x85, 0x80, 0x01, 0x80]) == nil)  // historical bytes cut short
        #expect(ATR([0x3B, 0x80]) == nil)  // TD1 announced, missing
        #expect(ATR([0x3B, 0x0F] + [UInt8](repeating: 0, count: 40)) == nil)  // longer than 33 bytes
        // a compact-TLV object running past the end yields no objects, not a crash
        let cut = ATR(Self.contactless([0x80, 0x75, 0x00, 0x00]))
        #expect(cut?.compactTLVObjects.isEmpty == true)
        #expect(cut?.supportsExtendedLength == nil)
    }

    @Test func everyShortPrefixOfAnATRParsesOrIsRefusedWithoutCrashing() {
        let full = Self.contactless([0x00, 0x64, 1, 2, 3, 4, 0x73, 0xC0, 0x00, 0xC0, 0x05, 0x90, 0x00])
        for n in 0...full.count { _ = ATR(Array(full.prefix(n)))?.supportsExtendedLength }
        for b in 0...255 { _ = ATR([0x3B, UInt8(b), 0xFF, 0xFF, 0xFF])?.compactTLVObjects }
    }
}

/// `ResponseChaining`: '61xx' collected with GET RESPONSE (ISO/IEC 7816-4 §5.3.4).
@Suite struct ResponseChainingTests {
    @Test func partsAreConcatenatedAndTheLastStatusWins() async throws {
        var sent: [CommandAPDU] = []
        var parts: [ResponseAPDU] = [ResponseAPDU(data: [3, 4], sw: 0x6101), ResponseAPDU(data: [5], sw: 0x6282)]
        let first = ResponseAPDU(data: [1, 2], sw: 0x6102)
        let r = try await ResponseChaining.collect(
            first, after: CommandAPDU(cla: 0x0D, ins: 0xB0, p1: 0, p2: 0, ne: 256)
        ) { c in
            sent.append(c)
            return parts.removeFirst()
        }
        #expect(r.data == [1, 2, 3, 4, 5])
        #expect(r.statusWord == .endOfFileReached)
        #expect(sent.map(\.ins) == [0xC0, 0xC0])
        #expect(sent.map(\.ne) == [2, 1])
        // plain GET RESPONSE on the command's logical channel: no SM bits
        #expect(sent.allSatisfy { $0.cla == 0x01 })
    }

    @Test func anUnchainedResponseIsReturnedAsItIs() async throws {
        let r = try await ResponseChaining.collect(ResponseAPDU(data: [9], sw: 0x9000), after: .getResponse(ne: 1)) {
            _ in
            Issue.record("nothing should be sent")
            return ResponseAPDU(sw: 0x9000)
        }
        #expect(r.data == [9])
    }

    @Test func smallPartsAreFollowedBeyond260Parts() async throws {
        // an extended response of 65,000 bytes in 60-byte parts: 1,084 parts, each averaging 60 bytes
        let total = 65_000
        var sent = 60
        var commands = 0
        let r = try await ResponseChaining.collect(
            ResponseAPDU(data: [UInt8](repeating: 1, count: 60), sw: 0x613C), after: .getResponse(ne: 1)
        ) { _ in
            commands += 1
            let n = min(60, total - sent)
            sent += n
            return ResponseAPDU(data: [UInt8](repeating: 1, count: n), sw: sent == total ? 0x9000 : 0x613C)
        }
        #expect(r.data.count == total && r.statusWord == .success)
        #expect(commands > ResponseChaining.maximumParts)
    }

    @Test(arguments: [1, 31])
    func tinyPartsStopAfter260(partSize: Int) async throws {
        var commands = 0
        await #expect(throws: TransportError.self) {
            _ = try await ResponseChaining.collect(
                ResponseAPDU(data: [UInt8](repeating: 0, count: partSize), sw: 0x6101), after: .getResponse(ne: 1)
            ) { _ in
                commands += 1
                return ResponseAPDU(data: [UInt8](repeating: 0, count: partSize), sw: 0x6101)
            }
        }
        #expect(commands == ResponseChaining.maximumParts)
    }

    @Test func endlessLargePartsStopAtTheByteBound() async throws {
        var commands = 0
        await #expect(throws: TransportError.self) {
            _ = try await ResponseChaining.collect(ResponseAPDU(sw: 0x6100), after: .getResponse(ne: 1)) { _ in
                commands += 1
                return ResponseAPDU(data: [UInt8](repeating: 0, count: 40), sw: 0x6128)
            }
        }
        #expect(commands <= ResponseChaining.maximumBytes / ResponseChaining.minimumAveragePartBytes + 1)
    }

    @Test func sixtyOneZeroAsksFor256() async throws {
        var asked: [Int?] = []
        _ = try await ResponseChaining.collect(ResponseAPDU(sw: 0x6100), after: .getResponse(ne: 1)) { c in
            asked.append(c.ne)
            return ResponseAPDU(data: [UInt8](repeating: 0, count: 256), sw: 0x9000)
        }
        #expect(asked == [256])
    }
}
