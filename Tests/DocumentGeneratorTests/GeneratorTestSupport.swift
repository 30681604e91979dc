import ASN1TLV
import Foundation
import MRTDTestSupport

/// Runs an external tool (openssl, ImageMagick) for cross-checking generated artefacts.
enum ExternalTool {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
    }

    /// Absolute path of `name` on PATH (or /usr/local/bin, /usr/bin), nil when absent.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for dir in path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/bin"] {
            let candidate = dir + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func run(_ tool: String, _ arguments: [String], stdin: [UInt8] = []) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        let inPipe = Pipe()
        let outPipe = Pipe()
        let errPipe = Pipe()
        p.standardInput = inPipe
        p.standardOutput = outPipe
        p.standardError = errPipe
        try p.run()
        inPipe.fileHandleForWriting.write(Data(stdin))
        try inPipe.fileHandleForWriting.close()
        let out = outPipe.fileHandleForReading.readDataToEndOfFile()
        let err = errPipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: [UInt8](out), stderr: String(decoding: err, as: UTF8.self))
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL { TemporaryFolder.make("gen") }

    /// Prints a visible skip note (Swift Testing has no runtime skip in this toolchain's API we rely on).
    static func skipNote(_ what: String) {
        print("SKIPPED (tool missing): \(what)")
    }
}

/// Writes bytes to a file in `dir`.
@discardableResult
func writeFile(_ dir: URL, _ name: String, _ bytes: [UInt8]) throws -> String {
    let url = dir.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url.path
}

/// PEM armour for openssl.
func pem(_ der: [UInt8], _ label: String = "CERTIFICATE") -> String {
    let b64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN \(label)-----\n\(b64)\n-----END \(label)-----\n"
}

/// The pieces of a CMS SignedData the tests look at (RFC 5652 §5).
struct ParsedSignedData {
    var eContentType: ASN1ObjectIdentifier
    var eContent: [UInt8]
    var certificates: [[UInt8]]
    var signerInfo: TLVNode
    var signedAttributes: [ASN1ObjectIdentifier: TLVNode]

    init(contentInfo der: [UInt8]) throws {
        let ci = try TLVParser.parse(der, rules: .der)
        guard try ci.child(at: 0).objectIdentifierValue() == "1.2.840.113549.1.7.2" else {
            throw TLVError(.invalidValue, offset: 0, "not signedData")
        }
        let sd = try ci.child(at: 1).child(at: 0)
        let encap = try sd.child(at: 2)
        eContentType = try encap.child(at: 0).objectIdentifierValue()
        eContent = try encap.child(at: 1).child(at: 0).octetStringValue()
        certificates = sd.child(0xA0)?.children.map(\.encodedBytes) ?? []
        guard let si = sd.children.last?.children.first else {
            throw TLVError(.invalidValue, offset: 0, "no SignerInfo")
        }
        signerInfo = si
        var attrs: [ASN1ObjectIdentifier: TLVNode] = [:]
        for a in signerInfo.child(0xA0)?.children ?? [] {
            attrs[try a.child(at: 0).objectIdentifierValue()] = try a.child(at: 1).child(at: 0)
        }
        signedAttributes = attrs
    }

    var signingTime: ASN1Time? { try? signedAttributes["1.2.840.113549.1.9.5"]?.timeValue() }
}

/// OpenSSL CLI helpers (skipping with a visible note when openssl is missing).
enum OpenSSL {
    static var path: String? {
        let p = ExternalTool.find("openssl")
        if p == nil { ExternalTool.skipNote("openssl CLI") }
        return p
    }

    /// 2026-06-01T00:00:00Z: a fixed validation time inside the generated validity periods.
    static let attime = "1780272000"

    /// `openssl verify -x509_strict -CAfile ca leaf`; nil when openssl is missing.
    static func verify(ca: [UInt8], leaf: [UInt8], strict: Bool = true) throws -> ExternalTool.Result? {
        guard let openssl = path else { return nil }
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let caPath = try writeFile(dir, "ca.pem", Array(pem(ca).utf8))
        let leafPath = try writeFile(dir, "leaf.pem", Array(pem(leaf).utf8))
        return try ExternalTool.run(
            openssl, ["verify"] + (strict ? ["-x509_strict"] : []) + ["-attime", attime, "-CAfile", caPath, leafPath])
    }

    /// `openssl cms -verify` of a DER ContentInfo against `ca`; returns the result and the verified content.
    static func cmsVerify(_ contentInfo: [UInt8], ca: [UInt8]) throws -> (ExternalTool.Result, [UInt8])? {
        guard let openssl = path else { return nil }
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let caPath = try writeFile(dir, "ca.pem", Array(pem(ca).utf8))
        let inPath = try writeFile(dir, "cms.der", contentInfo)
        let outPath = dir.appendingPathComponent("content.bin").path
        let r = try ExternalTool.run(
            openssl,
            [
                "cms", "-verify", "-inform", "DER", "-in", inPath, "-binary",
                "-CAfile", caPath, "-purpose", "any", "-attime", attime, "-out", outPath,
            ])
        let content = (try? Data(contentsOf: URL(fileURLWithPath: outPath))).map { [UInt8]($0) } ?? []
        return (r, content)
    }

    /// `openssl crl -verify` (signature against `ca`) and the text form.
    static func crl(_ der: [UInt8], ca: [UInt8]) throws -> ExternalTool.Result? {
        guard let openssl = path else { return nil }
        let dir = try ExternalTool.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let caPath = try writeFile(dir, "ca.pem", Array(pem(ca).utf8))
        let inPath = try writeFile(dir, "crl.der", der)
        return try ExternalTool.run(
            openssl, ["crl", "-inform", "DER", "-in", inPath, "-CAfile", caPath, "-noout", "-text"])
    }

    /// `openssl x509 -text` of a DER certificate.
    static func text(_ der: [UInt8]) throws -> ExternalTool.Result? {
        guard let openssl = path else { return nil }
        return try ExternalTool.run(openssl, ["x509", "-inform", "DER", "-noout", "-text"], stdin: der)
    }
}
