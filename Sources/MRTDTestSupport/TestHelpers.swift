import ASN1TLV
public import Foundation

/// Bytes from a hex literal; traps on bad input (test code only).
public func hex(_ s: String) -> [UInt8] {
    guard let b = Hex.decode(s) else { preconditionFailure("bad hex literal: \(s)") }
    return b
}

/// Uppercase hex of bytes.
public func hexString<S: Sequence>(_ b: S) -> String where S.Element == UInt8 { Hex.encode(b) }

/// Flips one bit (bit `bit` of byte `index`), for negative twins of published vectors.
public func flipBit(_ b: [UInt8], at index: Int, bit: Int = 0) -> [UInt8] {
    var c = b
    c[index] ^= UInt8(1 << bit)
    return c
}

/// Paths of the repository, found from this source file's location.
public enum RepositoryPaths {
    /// The package root (the folder holding Package.swift).
    public static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }
    /// TestVectors/ in the repository.
    public static var testVectors: URL { root.appendingPathComponent("TestVectors") }
    /// `shared/fixtures` beside the repository (read-only public inputs): the first ancestor folder of the
    /// package root that holds `shared/fixtures` (a CI clone has it next to the checkout).
    public static var sharedFixtures: URL {
        var dir = root
        for _ in 0..<6 {
            let candidate = dir.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return root.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }
}

/// Loads a TestVectors/ JSON file as a dictionary.
public func loadVectorFile(_ name: String) throws -> [String: Any] {
    let data = try Data(contentsOf: RepositoryPaths.testVectors.appendingPathComponent(name))
    guard let obj = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw CocoaError(.fileReadCorruptFile)
    }
    return obj
}
