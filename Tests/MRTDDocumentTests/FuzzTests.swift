import ASN1TLV
import Foundation
import MRTDDocument
import MRTDTestSupport
import Testing

/// Mutations of a valid file: bit flips, truncations, inflated lengths, byte insertions/deletions.
enum Mutator {
    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        guard !input.isEmpty else { return [UInt8(truncatingIfNeeded: rng.next())] }
        var b = input
        switch rng.next() % 6 {
        case 0:  // 1–4 bit flips
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let i = Int(rng.next() % UInt64(b.count))
                b[i] ^= UInt8(1 << (rng.next() % 8))
            }
        case 1:  // truncation
            b = Array(b.prefix(Int(rng.next() % UInt64(b.count))))
        case 2:  // inflate a length: a random byte gets a large value, or becomes a long-form length
            let i = Int(rng.next() % UInt64(b.count))
            if rng.next() % 2 == 0 {
                b[i] = b[i] < 0x80 ? min(0x7F, b[i] &+ 1 + UInt8(rng.next() % 16)) : 0x84
            } else {
                b.replaceSubrange(i..<(i + 1), with: [0x84, 0x7F, 0xFF, 0xFF, 0xFF])
            }
        case 3:  // deflate a length-like byte
            let i = Int(rng.next() % UInt64(b.count))
            b[i] = b[i] &- 1 &- UInt8(rng.next() % 4)
        case 4:  // insert random bytes
            let i = Int(rng.next() % UInt64(b.count + 1))
            b.insert(
                contentsOf: (0..<(1 + Int(rng.next() % 4))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, at: i)
        default:  // delete a range
            let i = Int(rng.next() % UInt64(b.count))
            let n = 1 + Int(rng.next() % 8)
            b.removeSubrange(i..<min(b.count, i + n))
        }
        return b
    }
}

struct FuzzTests {
    struct Target: Sendable, CustomStringConvertible {
        let name: String
        let seeds: @Sendable () throws -> [[UInt8]]
        /// Parses and touches the result; only `LDSParseError` may escape.
        let parse: @Sendable ([UInt8]) throws(LDSParseError) -> Void
        var description: String { name }
    }

    static let targets: [Target] = [
        Target(
            name: "SODFile",
            seeds: {
                [
                    try Fixtures.bytes("specimens/bsi2008/EF_SOD.bin"),
                    try Fixtures.bytes("specimens/nl-2006/ef011D.bin"),
                    SODFileTests.berSOD(lso: SODFileTests.lso()),
                ]
            }, parse: { b throws(LDSParseError) in _ = try SODFile(bytes: b).ldsSecurityObject.dataGroupHashes.count }),
        Target(
            name: "LDSSecurityObject",
            seeds: { [SODFileTests.lso(), SODFileTests.lso(version: 0, withVersionInfo: false)] },
            parse: { b throws(LDSParseError) in _ = try LDSSecurityObject(bytes: b) }),
        Target(
            name: "COM", seeds: { [try Fixtures.bytes("specimens/bsi-tr03105-5/EF_COM.bin")] },
            parse: { b throws(LDSParseError) in _ = try COMFile(bytes: b).dataGroups }),
        Target(
            name: "DG1",
            seeds: {
                [
                    try Fixtures.bytes("specimens/bsi2008/Datagroup1.bin"),
                    hex(
                        "615D5F1F5A493C55544F443233313435383930373C3C3C3C3C3C3C3C3C3C3C3C3C3C3C37343038313232463132303431353955544F3C3C3C3C3C3C3C3C3C3C3C364552494B53534F4E3C3C414E4E413C4D415249413C3C3C3C3C3C3C3C3C3C"
                    ),
                ]
            }, parse: { b throws(LDSParseError) in _ = try DG1File(bytes: b).mrz.keyInfo.mrzInformation }),
        Target(
            name: "DG2",
            seeds: {
                [
                    try Fixtures.bytes("specimens/nl-2006/ef0102.bin"),
                    try Fixtures.bytes("lds-samples/DG2-iso19794-5-all-fields.bin"),
                    Build.dg2(record: Build.iso19794Record(image: Build.jpeg(width: 8, height: 8))),
                ]
            },
            parse: { b throws(LDSParseError) in _ = try DG2File(bytes: b).faces.map { ($0.width, $0.height, $0.format) }
            }),
        Target(
            name: "DG3", seeds: { [try Fixtures.bytes("specimens/bsi2008/Datagroup3.bin")] },
            parse: { b throws(LDSParseError) in _ = try BiometricContainerFile(file: .dg3, bytes: b) }),
        Target(
            name: "DG5", seeds: { [Build.dg5] },
            parse: { b throws(LDSParseError) in
                _ = try DisplayedImageFile(file: .dg5, bytes: b).images.map(\.dimensions)
            }),
        Target(
            name: "DG11", seeds: { [Build.dg11] },
            parse: { b throws(LDSParseError) in _ = try DG11File(bytes: b).nameComponents }),
        Target(name: "DG12", seeds: { [Build.dg12] }, parse: { b throws(LDSParseError) in _ = try DG12File(bytes: b) }),
        Target(name: "DG13", seeds: { [Build.dg13] }, parse: { b throws(LDSParseError) in _ = try DG13File(bytes: b) }),
        Target(
            name: "DG15",
            seeds: {
                [
                    try Fixtures.bytes("specimens/nl-2006/ef010F.bin"), Build.dg15EC(named: true),
                    Build.dg15EC(named: false),
                ]
            }, parse: { b throws(LDSParseError) in _ = try DG15File(bytes: b).keySizeBits }),
        Target(name: "DG16", seeds: { [Build.dg16] }, parse: { b throws(LDSParseError) in _ = try DG16File(bytes: b) }),
        Target(
            name: "ISO19794FaceRecord", seeds: { [Build.iso19794Record(image: Build.jpeg(width: 8, height: 8))] },
            parse: { b throws(LDSParseError) in _ = try ISO19794FaceRecord(bytes: b) }),
        Target(
            name: "ISO39794FaceImageDataBlock",
            seeds: {
                let dg2 = try DG2File(bytes: try Fixtures.bytes("lds-samples/DG2-iso19794-5-all-fields.bin"))
                return [try #require(dg2.iso39794Blocks.first).node.encodedBytes]
            },
            parse: { b throws(LDSParseError) in
                _ = try ISO39794FaceImageDataBlock(bytes: b).representations.map(\.imageFormat)
            }),
        Target(
            name: "ImageFormat.dimensions",
            seeds: {
                let dg2 = try DG2File(bytes: try Fixtures.bytes("specimens/nl-2006/ef0102.bin"))
                return [Build.jpeg(width: 30, height: 20), Array(dg2.faces[0].imageData.prefix(512))]
            }, parse: { b throws(LDSParseError) in _ = ImageFormat.dimensions(b) }),
    ]

    static let iterations = 2000

    @Test(.sharedFixtures, arguments: targets)
    func mutatedFilesOnlyThrowTypedErrors(_ target: Target) throws {
        let seeds = try target.seeds()
        // Every seed parses before mutation (otherwise the fuzzing would only exercise the first check).
        for s in seeds { #expect(throws: Never.self) { try target.parse(s) } }
        var rng = SplitMix64(seed: 0x4D52_5444 ^ UInt64(target.name.utf8.count))
        var errors = 0
        var values = 0
        for i in 0..<Self.iterations {
            var input = seeds[i % seeds.count]
            for _ in 0..<(1 + Int(rng.next() % 3)) { input = Mutator.mutate(input, &rng) }
            do {
                try target.parse(input)
                values += 1
            } catch {
                // Typed throws: the only possible error is LDSParseError; it must name a place inside the input.
                #expect(error.offset >= 0 && error.offset <= input.count + 8, "\(error)")
                errors += 1
            }
        }
        #expect(errors + values == Self.iterations)
        if target.name != "ImageFormat.dimensions" { #expect(errors > 0) }
    }

    @Test func mutatedMRZStrings() {
        let seeds = MRZTests.cases.map { $0.lines.joined(separator: "\n") }
        var rng = SplitMix64(seed: 42)
        let alphabet = Array("<0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ\n\r é")
        var parsed = 0
        for i in 0..<4000 {
            var c = Array(seeds[i % seeds.count])
            switch rng.next() % 3 {
            case 0: c[Int(rng.next() % UInt64(c.count))] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
            case 1: c = Array(c.prefix(Int(rng.next() % UInt64(c.count))))
            default: c.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: Int(rng.next() % UInt64(c.count)))
            }
            if let mrz = try? MRZ(String(c)) {
                parsed += 1
                _ = (
                    mrz.isValid, mrz.keyInfo.mrzInformation,
                    mrz.dateOfBirth.resolvedAsBirthDate(reference: CalendarDate(year: 2026, month: 1, day: 1))
                )
            }
        }
        #expect(parsed > 0 && parsed < 4000)
    }
}
