import ASN1TLV
import Foundation

/// Trust material read from files and folders, apart from the store's index (`TrustStore.load` adds what
/// was read): which files the paths name (folders recursively, in name order, at most
/// `TrustLimits.maxLoadFiles`), their bytes (regular files only, bounded by `TrustLimits`), the PEM or DER
/// blocks they hold, and the kind of each block (certificate, CSCA master list, CRL). What cannot be read is
/// a refusal; only a path that does not exist throws.
public struct TrustMaterialFiles: Sendable {
    /// The blocks read, by kind, each with its source (a path, or `path#n` for the n-th block of a PEM file).
    public private(set) var byKind: [TrustStore.FileKind: [(source: String, der: [UInt8])]] = [:]
    /// What was not read, and why.
    public private(set) var refusals: [TrustStore.Refusal] = []

    public init(paths: [String]) throws(TrustError) {
        var files: [String] = []
        for path in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                throw TrustError(.unreadable, .trustStore, "no such file or folder: \(path)")
            }
            if isDir.boolValue {
                var found: [String] = []
                var tooMany = false
                if let e = FileManager.default.enumerator(
                    at: URL(fileURLWithPath: path), includingPropertiesForKeys: [.isRegularFileKey])
                {
                    for case let url as URL in e
                    where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                        guard files.count + found.count < TrustLimits.maxLoadFiles else {
                            tooMany = true
                            break
                        }
                        found.append(url.path)
                    }
                }
                if tooMany {
                    refuse(
                        path,
                        TrustError(
                            .limitExceeded, .trustStore,
                            "more than \(TrustLimits.maxLoadFiles) files in one load (TrustLimits.maxLoadFiles): the folder is not read"
                        ))
                    continue
                }
                files += found.sorted()
            } else {
                files.append(path)
            }
        }
        // everything read in one load is held until it is added (certificates first, then lists, then CRLs): bounded
        var budget = TrustLimits.maxLoadBytes
        var kinds: [ByteKey: TrustStore.FileKind?] = [:]
        for path in files {
            let blocks: [[UInt8]]
            do {
                let bytes: [UInt8]
                if budget < TrustLimits.maxFileBytes {
                    bytes = try TrustLimits.readRegularFile(
                        path, limit: budget, limitName: "TrustLimits.maxLoadBytes, what one load reads in all")
                } else {
                    bytes = try TrustLimits.readRegularFile(path)
                }
                budget -= bytes.count
                blocks = try Self.derBlocks(bytes)
            } catch {
                refuse(path, error)
                continue
            }
            if blocks.isEmpty { refuse(path, TrustError(.unreadable, .trustStore, "empty file")) }
            for (n, der) in blocks.enumerated() {
                let source = blocks.count > 1 ? "\(path)#\(n + 1)" : path
                // a block seen before in this load is not parsed again (4,096 copies of one certificate); the
                // store still records each copy's source
                let known = kinds[ByteKey(der)]
                let detected = known ?? Self.detectKind(der)
                if known == nil { kinds[ByteKey(der)] = .some(detected) }
                if let kind = detected {
                    do { try TrustLimits.check(der.count, kind: kind, step: .trustStore) } catch {
                        refuse(source, error, kind: kind)
                        continue
                    }
                    byKind[kind, default: []].append((source, der))
                } else {
                    refuse(
                        source, TrustError(.unreadable, .trustStore, "not a certificate, CRL or CSCA master list"))
                }
            }
        }
    }

    private mutating func refuse(_ source: String, _ error: TrustError, kind: TrustStore.FileKind? = nil) {
        refusals.append(TrustStore.Refusal(source: source, kind: kind, error: error))
    }

    /// Splits PEM text into DER blocks; returns the input itself when it is not PEM. A PEM file of more than
    /// `TrustLimits.maxPEMBytes` or `maxPEMBlocks` blocks is refused before any block is decoded.
    static func derBlocks(_ bytes: [UInt8]) throws(TrustError) -> [[UInt8]] {
        // DER starts with its tag (0x30, SEQUENCE, for all three kinds); PEM is text holding "-----BEGIN ".
        // Only what may be text is validated as UTF-8 (a master list is close to a megabyte).
        if bytes.first == 0x30 { return [bytes] }
        let blocks = countPEMBlocks(bytes)
        if blocks > 0 {
            guard bytes.count <= TrustLimits.maxPEMBytes else {
                throw TrustError(
                    .limitExceeded, .trustStore,
                    "PEM text of \(bytes.count) bytes exceeds the limit of \(TrustLimits.maxPEMBytes) bytes (TrustLimits.maxPEMBytes)"
                )
            }
            // (only where it costs: text under 64 KiB is split whatever its lines)
            let lines = bytes.count < 65_536 ? 0 : countLineBreaks(bytes)
            guard lines == 0 || bytes.count / lines >= TrustLimits.minPEMBytesPerLine else {
                throw TrustError(
                    .limitExceeded, .trustStore,
                    "PEM text averages \(bytes.count / lines) bytes a line, fewer than \(TrustLimits.minPEMBytesPerLine) (TrustLimits.minPEMBytesPerLine; base64 lines are 64 characters)"
                )
            }
            guard blocks <= TrustLimits.maxPEMBlocks else {
                throw TrustError(
                    .limitExceeded, .trustStore,
                    "PEM text holds \(blocks) blocks, more than the limit of \(TrustLimits.maxPEMBlocks) (TrustLimits.maxPEMBlocks)"
                )
            }
        }
        // Text only (what is not UTF-8 is handed on as one block, which then is no certificate, CRL or list).
        let ascii = blocks > 0 && isASCII(bytes)
        guard blocks > 0, ascii || String(validating: bytes, as: UTF8.self) != nil else {
            return bytes.isEmpty ? [] : [bytes]
        }
        return try pemBodies(bytes, ascii: ascii)
    }

    /// The base64 bodies of the PEM blocks of `bytes` (RFC 7468), decoded: the lines between "-----BEGIN " and
    /// "-----END " (each trimmed of spaces and tabs; header lines, which hold a colon, skipped), joined; a body that is
    /// not strict base64 is dropped. Lines end at LF, CR, VT, FF, NEL, LS or PS. One pass over the bytes with one body
    /// buffer: splitting the text into `String` lines and appending them cost several times the decoding.
    static func pemBodies(_ bytes: [UInt8], ascii: Bool? = nil) throws(TrustError) -> [[UInt8]] {
        let ascii = ascii ?? isASCII(bytes)
        // base64 characters of the largest body allowed (`TrustLimits.maxPEMBlockBytes` decoded)
        let maxBodyCharacters = (TrustLimits.maxPEMBlockBytes + 2) / 3 * 4
        var tooLong = false
        let begin = Array("-----BEGIN ".utf8)
        let end = Array("-----END ".utf8)
        var out: [[UInt8]] = []
        var body: [UInt8]? = nil
        bytes.withUnsafeBufferPointer { b in
            /// The length of the line break at `i`, 0 when there is none.
            func lineBreak(_ i: Int) -> Int {
                switch b[i] {
                case 0x0A, 0x0B, 0x0C, 0x0D: return 1
                case 0xC2 where i + 1 < b.count && b[i + 1] == 0x85: return 2
                case 0xE2 where i + 2 < b.count && b[i + 1] == 0x80 && (b[i + 2] == 0xA8 || b[i + 2] == 0xA9): return 3
                default: return 0
                }
            }
            func hasPrefix(_ p: [UInt8], _ from: Int, _ to: Int) -> Bool {
                guard to - from >= p.count else { return false }
                for k in 0..<p.count where b[from + k] != p[k] { return false }
                return true
            }
            var i = 0
            while i < b.count {
                var lineEnd = i
                var breakLength = 0
                if ascii {
                    // only LF, VT, FF and CR end a line in ASCII text: one comparison per byte
                    while lineEnd < b.count, b[lineEnd] &- 0x0A >= 4 { lineEnd += 1 }
                    breakLength = lineEnd < b.count ? 1 : 0
                } else {
                    while lineEnd < b.count {
                        breakLength = lineBreak(lineEnd)
                        if breakLength > 0 { break }
                        lineEnd += 1
                    }
                }
                var from = i
                var to = lineEnd
                while from < to, b[from] == 0x20 || b[from] == 0x09 { from += 1 }
                while to > from, b[to - 1] == 0x20 || b[to - 1] == 0x09 { to -= 1 }
                if hasPrefix(begin, from, to) {
                    body = []
                } else if hasPrefix(end, from, to) {
                    if let d = body.flatMap({ Data(base64Encoded: Data($0)) }) { out.append([UInt8](d)) }
                    body = nil
                } else if body != nil, !b[from..<to].contains(0x3A) {
                    body!.append(contentsOf: b[from..<to])
                    if body!.count > maxBodyCharacters {
                        tooLong = true
                        return
                    }
                }
                i = lineEnd + breakLength
            }
        }
        if tooLong {
            throw TrustError(
                .limitExceeded, .trustStore,
                "a PEM block's body exceeds \(TrustLimits.maxPEMBlockBytes) bytes decoded (TrustLimits.maxPEMBlockBytes)"
            )
        }
        return out
    }

    /// Whether every byte is ASCII (then the text is UTF-8 without building a `String` of it: a copy of 10 MB).
    static func isASCII(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            var high: UInt8 = 0
            for byte in b { high |= byte }
            return high < 0x80
        }
    }

    /// How many line breaks `bytes` holds (LF, VT, FF and CR each count: a CRLF is two), a byte scan.
    static func countLineBreaks(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { b in
            var count = 0
            for byte in b where byte &- 0x0A < 4 { count += 1 }
            return count
        }
    }

    /// How many "-----BEGIN " lines `bytes` holds (a byte scan: nothing decoded; `memchr` finds each "-").
    static func countPEMBlocks(_ bytes: [UInt8]) -> Int {
        let marker = Array("-----BEGIN ".utf8)
        var count = 0
        bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress, b.count >= marker.count else { return }
            var i = 0
            let last = b.count - marker.count
            while i <= last {
                guard let hit = memchr(base + i, 0x2D, last - i + 1) else { break }
                i = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                var k = 1
                while k < marker.count, b[i + k] == marker[k] { k += 1 }
                if k == marker.count {
                    count += 1
                    i += k
                } else {
                    i += 1
                }
            }
        }
        return count
    }

    /// Detects a master list (ContentInfo signedData with id-icao-cscaMasterList), a CRL
    /// (TBSCertList: a Time after the issuer) or a certificate (TBSCertificate: Validity after the issuer).
    static func detectKind(_ der: [UInt8]) -> TrustStore.FileKind? {
        // all three kinds are a SEQUENCE: anything else is not parsed at all
        guard der.first == 0x30, let node = try? TLVParser.parse(der, rules: .ber), node.tag == 0x30,
            node.children.count >= 2
        else {
            return nil
        }
        if node.children[0].tag == 0x06 { return isSignedData(node) ? .masterList : nil }
        let tbs = node.children[0]
        guard tbs.tag == 0x30 else { return nil }
        let fields = tbs.children.filter { $0.tag != 0xA0 && $0.tag != 0x02 }
        // fields: signature, issuer, then Validity (certificate) or thisUpdate (CRL)
        guard fields.count >= 3 else { return nil }
        switch fields[2].tag {
        case 0x17, 0x18: return .crl
        case 0x30: return .certificate
        default: return nil
        }
    }

    /// A ContentInfo holding SignedData (whatever its eContentType: `addMasterList` then says
    /// precisely what is wrong with a SignedData that is not a master list).
    private static func isSignedData(_ node: TLVNode) -> Bool {
        (try? node.children[0].objectIdentifierValue()) == TrustOID.signedData
    }

}
