import ASN1TLV
public import Foundation
public import Testing

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
}

/// The public fixture files (real master lists, CRLs, LDS samples, specimen documents) kept with their provenance
/// in `shared/fixtures` beside the checkout, outside the repository (they are not redistributed). Every test that
/// reads them finds them here and carries the `.sharedFixtures` trait: in a clone without that folder such a test
/// is skipped with the reason; under `CI=true` it runs, and a missing folder fails it.
public enum SharedFixtures {
    /// `shared/fixtures` in the nearest ancestor folder of the package root that has one (a CI clone has it beside
    /// the checkout, a worktree one level further up), or nil.
    public static let folder: URL? = {
        var dir = RepositoryPaths.root.deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = dir.appendingPathComponent("shared/fixtures")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            if dir.path == "/" { break }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }()

    /// Whether the tests that read the fixtures run: when the folder is there, and always under `CI=true` (where a
    /// missing folder must fail them, not skip them).
    public static var enabled: Bool { folder != nil || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The folder, or where it is expected (beside the checkout), for messages of a test that runs without it.
    public static var root: URL {
        folder ?? RepositoryPaths.root.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }

    /// A fixture file's location from its path inside the folder (`masterlists/NL_ROOT_CA.cer`).
    public static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    /// A fixture file's bytes.
    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relativePath)))
    }
}

extension Trait where Self == ConditionTrait {
    /// For a test that reads `SharedFixtures`: skipped, with this reason, in a clone without `shared/fixtures` beside it.
    public static var sharedFixtures: Self {
        .enabled(
            if: SharedFixtures.enabled,
            "needs the public fixtures in shared/fixtures beside the checkout (not in the repository)")
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
