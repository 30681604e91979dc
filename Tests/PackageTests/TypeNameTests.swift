import Foundation
import MRTDTestSupport
import Testing

/// One home per concept: no type name is declared at the top level of two modules, so no caller
/// has to qualify a name with its module and no reader has to guess which of two types a name means.
struct TypeNameTests {
    /// The top-level types (struct, enum, class, actor, protocol, typealias) each module of Sources/ declares.
    static func topLevelTypes() throws -> [String: Set<String>] {
        let sources = RepositoryPaths.root.appendingPathComponent("Sources")
        let regex = try NSRegularExpression(
            pattern:
                #"^(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?(?:final\s+)?(?:struct|enum|class|actor|protocol|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)"#,
            options: [.anchorsMatchLines])
        var modulesByName: [String: Set<String>] = [:]
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path)
        for module in modules {
            let dir = sources.appendingPathComponent(module)
            guard let walker = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let url as URL in walker where url.pathExtension == "swift" {
                let text = try String(contentsOf: url, encoding: .utf8)
                let ns = text as NSString
                for m in regex.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
                    modulesByName[ns.substring(with: m.range(at: 1)), default: []].insert(module)
                }
            }
        }
        return modulesByName
    }

    @Test("no type name is declared at the top level of two modules")
    func typeNamesHaveOneHome() throws {
        let names = try Self.topLevelTypes()
        #expect(names["TLVParser"] == ["ASN1TLV"], "the declarations were not found")
        for (name, modules) in names.sorted(by: { $0.key < $1.key }) where modules.count > 1 {
            Issue.record("\(name) is declared in \(modules.sorted().joined(separator: " and "))")
        }
    }
}
