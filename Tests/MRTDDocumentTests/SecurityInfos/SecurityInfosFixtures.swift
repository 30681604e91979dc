import Foundation
import MRTDTestSupport

/// Locates ../shared/fixtures from any checkout layout (main repository or a worktree nested deeper).
enum SecurityInfosFixtures {
    static var root: URL {
        let fm = FileManager.default
        if fm.fileExists(atPath: RepositoryPaths.sharedFixtures.path) { return RepositoryPaths.sharedFixtures }
        var dir = RepositoryPaths.root
        for _ in 0..<4 {
            dir = dir.deletingLastPathComponent()
            let candidate = dir.appendingPathComponent("shared/fixtures")
            if fm.fileExists(atPath: candidate.path) { return candidate }
        }
        return RepositoryPaths.sharedFixtures
    }

    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    static func vector(_ relative: String) throws -> [String: Any] {
        let data = try Data(contentsOf: RepositoryPaths.testVectors.appendingPathComponent(relative))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }
}
