import ASN1TLV
import Foundation
import MRTDDocument
import MRTDTestSupport

@testable import MRTDTrust

/// The public fixture folder (`SharedFixtures`: `shared/fixtures` beside the checkout); tests reading it carry
/// `.sharedFixtures`.
enum Fixtures {
    static var root: URL { SharedFixtures.root }

    static func path(_ relative: String) -> String { SharedFixtures.url(relative).path }

    static func bytes(_ relative: String) throws -> [UInt8] { try SharedFixtures.bytes(relative) }

    static let deMasterList = "masterlists/DE_ML_2026-05-28-08-28-45.ml"
    static let deRoot = "masterlists/DE_ROOT_CA_CSCA07.cer"
    static let nlMasterList = "masterlists/NL_ML_2026-07-22.ml"
    static let nlRoot = "masterlists/NL_ROOT_CA.cer"
    static let colCRL = "crl/COL.crl"
    static let cardSecurity = "lds-samples/EF_CardSecurity.bin"
}

/// A specimen document of the fixtures: its SOD, data groups (bytes as read) and a validation time
/// inside its (long expired) document signer's validity.
struct Specimen: CustomStringConvertible, Sendable {
    let name: String
    let sodFile: String
    let dataGroupFiles: [Int: String]
    /// Data groups present as files but not listed in the SOD (a fact of these fixtures).
    let unlisted: [Int]
    let validationTime: ASN1Time
    /// Expected facts read independently (openssl asn1parse of the files).
    let expectedSignature: String
    let expectedDSSerial: String
    let expectedCountry: String

    var description: String { name }

    func sod() throws -> SODFile { try SODFile(bytes: try Fixtures.bytes(sodFile)) }

    /// The data groups the SOD lists (`includingUnlisted` adds the others present as files).
    func dataGroups(includingUnlisted: Bool = false) throws -> [Int: [UInt8]] {
        var d: [Int: [UInt8]] = [:]
        for (dg, f) in dataGroupFiles where includingUnlisted || !unlisted.contains(dg) {
            d[dg] = try Fixtures.bytes(f)
        }
        return d
    }

    /// The issuing state from DG1's MRZ (characters 3–5), read here without MRTDDocument's MRZ parser.
    func issuingState() throws -> String {
        let dg1 = try TLVParser.parse(try Fixtures.bytes(dataGroupFiles[1]!))
        let mrz = try dg1.requireChild(0x5F1F).valueBytes
        return String(decoding: mrz[2..<5], as: UTF8.self)
    }

    static let all: [Specimen] = [
        Specimen(
            name: "bsi2008", sodFile: "specimens/bsi2008/EF_SOD.bin",
            dataGroupFiles: [
                1: "specimens/bsi2008/Datagroup1.bin", 2: "specimens/bsi2008/Datagroup2.bin",
                3: "specimens/bsi2008/Datagroup3.bin", 4: "specimens/bsi2008/Datagroup4.bin",
                14: "specimens/bsi2008/Datagroup14.bin", 15: "specimens/bsi2008/Datagroup15.bin",
            ],
            unlisted: [4, 15],
            validationTime: ASN1Time(year: 2008, month: 6, day: 1),
            expectedSignature: "ecdsa-with-SHA1", expectedDSSerial: "1267", expectedCountry: "DE"),
        Specimen(
            name: "bsi-tr03105-5", sodFile: "specimens/bsi-tr03105-5/EF_SOD.bin",
            dataGroupFiles: [
                1: "specimens/bsi-tr03105-5/Datagroup1.bin", 14: "specimens/bsi-tr03105-5/Datagroup14.bin",
                15: "specimens/bsi-tr03105-5/Datagroup15.bin",
            ],
            unlisted: [15],
            validationTime: ASN1Time(year: 2014, month: 6, day: 1),
            expectedSignature: "RSASSA-PSS sha256 MGF1-sha256 salt 32", expectedDSSerial: "0142FD5CF927",
            expectedCountry: "DE"),
        Specimen(
            name: "nl-2006", sodFile: "specimens/nl-2006/ef011D.bin",
            dataGroupFiles: [
                1: "specimens/nl-2006/ef0101.bin", 2: "specimens/nl-2006/ef0102.bin",
                15: "specimens/nl-2006/ef010F.bin",
            ],
            unlisted: [],
            validationTime: ASN1Time(year: 2007, month: 1, day: 1),
            expectedSignature: "sha256WithRSAEncryption", expectedDSSerial: "16", expectedCountry: "NL"),
    ]
}

#if canImport(Glibc)
    import Glibc
#endif

/// CPU time of the calling thread spent in `body`, in milliseconds: unlike wall time it does not grow
/// when other tests run in parallel on the shared cores.
func threadCPUTime<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }
    let start = now()
    let value = try body()
    return (value, now() - start)
}
