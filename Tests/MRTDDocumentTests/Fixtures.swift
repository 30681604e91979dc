import Foundation
import MRTDTestSupport

/// Public fixture files (public fixture files kept beside the repository with their provenance, not redistributed). `RepositoryPaths.sharedFixtures` is the
/// location beside the main checkout; worktrees live one level deeper, so the fixed path is tried as well.
enum Fixtures {
    static var root: URL {
        let candidates = [RepositoryPaths.sharedFixtures, URL(fileURLWithPath: "/work/shared/fixtures")]
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) } ?? candidates[0]
    }

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relativePath)))
    }
}
