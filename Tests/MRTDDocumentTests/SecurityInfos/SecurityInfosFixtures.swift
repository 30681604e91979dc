import Foundation
import MRTDTestSupport

/// The shared fixtures (`SharedFixtures`: tests reading them carry `.sharedFixtures`) and TestVectors/ files used
/// by these tests.
enum SecurityInfosFixtures {
    static var root: URL { SharedFixtures.root }

    static func bytes(_ relative: String) throws -> [UInt8] { try SharedFixtures.bytes(relative) }

    static func vector(_ relative: String) throws -> [String: Any] {
        let data = try Data(contentsOf: RepositoryPaths.testVectors.appendingPathComponent(relative))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }
}
