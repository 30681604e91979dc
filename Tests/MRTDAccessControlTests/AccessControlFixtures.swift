import Foundation
import MRTDTestSupport

/// The shared fixtures (`SharedFixtures`: tests reading them carry `.sharedFixtures`) used by these tests.
enum AccessControlFixtures {
    static var root: URL { SharedFixtures.root }

    static func bytes(_ relative: String) throws -> [UInt8] { try SharedFixtures.bytes(relative) }
}
