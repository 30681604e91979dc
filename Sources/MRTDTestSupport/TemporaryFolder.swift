public import Foundation

/// The tests' one way to get a scratch folder.
public enum TemporaryFolder {
    /// A new, empty folder `emrtd-PURPOSE-UUID` in the system's temporary folder; traps when it cannot be made (test
    /// code only: a machine without a writable temporary folder cannot run the tests). The caller removes it.
    public static func make(_ purpose: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("emrtd-\(purpose)-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            preconditionFailure("cannot make a temporary folder at \(url.path): \(error)")
        }
        return url
    }
}
