import Foundation
import MRTDTestSupport

/// Public fixture files kept beside the repository with their provenance, not redistributed (`SharedFixtures`);
/// tests reading them carry `.sharedFixtures`.
enum Fixtures {
    static var root: URL { SharedFixtures.root }

    static func bytes(_ relativePath: String) throws -> [UInt8] { try SharedFixtures.bytes(relativePath) }
}
