import Foundation
import MRTDTestSupport

/// The shared fixtures (`RepositoryPaths.sharedFixtures`) and TestVectors/ files used by these tests.
enum AccessControlFixtures {
    static var root: URL { RepositoryPaths.sharedFixtures }

    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }
}
