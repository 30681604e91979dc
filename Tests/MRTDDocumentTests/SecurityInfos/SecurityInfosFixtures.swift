import Foundation
import MRTDTestSupport

/// The shared fixtures (`RepositoryPaths.sharedFixtures`) and TestVectors/ files used by these tests.
enum SecurityInfosFixtures {
    static var root: URL { RepositoryPaths.sharedFixtures }

    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(relative)))
    }

    static func vector(_ relative: String) throws -> [String: Any] {
        let data = try Data(contentsOf: RepositoryPaths.testVectors.appendingPathComponent(relative))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }
}
