import Foundation
import MRTDTestSupport
import Testing

/// The manifest states exactly what the code imports (docs/architecture.md §2): every `import` of a package
/// module in Sources/ is a declared dependency, every declared dependency of a Swift target is imported
/// somewhere in it, each C library is imported by exactly one Swift module, and no module imports one of a
/// higher layer.
struct ManifestTests {
    /// The layers of docs/architecture.md §2, lowest first. A module may import only modules of a lower
    /// layer. A new module must be placed here (and in the architecture table) before its tests pass.
    static let layers: [String: Int] = [
        // C libraries (0) and their C shims (1, above the library they wrap)
        "CLibCrypto": 0, "CPCSCLite": 0, "CPCSCLiteShims": 1,
        "CMicroHTTPD": 0, "CMicroHTTPDShims": 1, "COpenJPEG": 0, "CTurboJPEG": 0, "CFaceImagingShims": 1,
        "CProcessShims": 1,
        "CTesseract": 0, "CLeptonica": 0, "CFreeType": 0,
        // pure foundations
        "ASN1TLV": 1, "ISO7816": 1, "CanonicalJSON": 1,
        // the one importer of each C library, LDS parsing, test support
        "MRTDCrypto": 2, "MRTDDocument": 2, "PCSCTransport": 2, "MRTDTestSupport": 2,
        "FaceImaging": 2, "HTTPServer": 2, "VPCDBridge": 2,
        "MRTDSecureMessaging": 3, "MRTDTrust": 3, "MRZCapture": 3,
        "MRTDAccessControl": 4, "DocumentGenerator": 4,
        "MRTDReader": 5, "VirtualChip": 5,
        "StepUp": 6, "EMRTDKit": 6, "SpecimenImages": 6,
        "KioskService": 7, "EMRTDBench": 7,
        "EMRTDCLI": 8,
        "emrtd": 9,
    ]

    /// A target as Package.swift declares it.
    struct Target {
        var name: String
        var kind: String
        var dependencies: [String]
    }

    static func manifestTargets() throws -> [Target] {
        let text = try String(contentsOf: RepositoryPaths.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        // `.target(name: "X", dependencies: ["A", "B"], …)` and the other target kinds; dependencies may span lines.
        let pattern =
            #"\.(target|executableTarget|systemLibrary|testTarget)\(\s*name:\s*"([A-Za-z0-9_]+)"(\s*,\s*dependencies:\s*\[([^\]]*)\])?"#
        let regex = try NSRegularExpression(pattern: pattern)
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { m in
            let deps: [String]
            if m.range(at: 4).location != NSNotFound {
                deps = ns.substring(with: m.range(at: 4)).split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(
                        in: CharacterSet(charactersIn: "\""))
                }.filter { !$0.isEmpty }
            } else {
                deps = []
            }
            return Target(
                name: ns.substring(with: m.range(at: 2)), kind: ns.substring(with: m.range(at: 1)), dependencies: deps)
        }
    }

    /// The package modules each Swift file of `Sources/<module>` imports.
    static func imports(of module: String, packageModules: Set<String>) throws -> [String: Set<String>] {
        let dir = RepositoryPaths.root.appendingPathComponent("Sources/\(module)")
        guard let walker = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil) else { return [:] }
        let regex = try NSRegularExpression(
            pattern:
                #"^\s*(?:@[A-Za-z_]+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z0-9_]+)"#,
            options: [.anchorsMatchLines])
        var result: [String: Set<String>] = [:]
        for case let url as URL in walker where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            let ns = text as NSString
            for m in regex.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
                let name = ns.substring(with: m.range(at: 1))
                if packageModules.contains(name) { result[url.lastPathComponent, default: []].insert(name) }
            }
        }
        return result
    }

    @Test("every import in Sources/ is a declared dependency, and every declared dependency is imported")
    func importsMatchTheManifest() throws {
        let targets = try Self.manifestTargets()
        #expect(targets.count > 10, "Package.swift's targets were not found")
        let names = Set(targets.map(\.name))
        for target in targets where target.kind == "target" || target.kind == "executableTarget" {
            let dir = RepositoryPaths.root.appendingPathComponent("Sources/\(target.name)")
            let isSwift =
                (try? FileManager.default.subpathsOfDirectory(atPath: dir.path))?.contains { $0.hasSuffix(".swift") }
                ?? false
            guard isSwift else { continue }  // C targets include headers, they do not import modules
            let byFile = try Self.imports(of: target.name, packageModules: names)
            let imported = byFile.values.reduce(into: Set<String>()) { $0.formUnion($1) }
            for module in imported.subtracting(target.dependencies) {
                let files = byFile.filter { $0.value.contains(module) }.keys.sorted().joined(separator: ", ")
                Issue.record("\(target.name) imports \(module) (\(files)) but Package.swift does not declare it")
            }
            for module in Set(target.dependencies).subtracting(imported) {
                Issue.record("\(target.name) declares a dependency on \(module) that no file imports: remove the edge")
            }
        }
    }

    @Test("each C library is imported by exactly one Swift module")
    func cLibrariesAreConfined() throws {
        let targets = try Self.manifestTargets()
        let names = Set(targets.map(\.name))
        let cTargets = targets.filter { t in
            if t.kind == "systemLibrary" { return true }
            let dir = RepositoryPaths.root.appendingPathComponent("Sources/\(t.name)")
            let files = (try? FileManager.default.subpathsOfDirectory(atPath: dir.path)) ?? []
            return t.kind == "target" && !files.isEmpty && !files.contains { $0.hasSuffix(".swift") }
        }.map(\.name)
        #expect(Set(cTargets).isSuperset(of: ["CLibCrypto", "CPCSCLite"]))
        var importers: [String: Set<String>] = [:]
        for target in targets where target.kind == "target" || target.kind == "executableTarget" {
            for module in try Self.imports(of: target.name, packageModules: names).values.reduce(
                into: Set<String>(), { $0.formUnion($1) })
            where cTargets.contains(module) {
                importers[module, default: []].insert(target.name)
            }
        }
        #expect(importers["CLibCrypto"] == ["MRTDCrypto"], "OpenSSL is imported by \(importers["CLibCrypto"] ?? [])")
        #expect(importers["CPCSCLite"] == ["PCSCTransport"], "pcsc-lite is imported by \(importers["CPCSCLite"] ?? [])")
        // A C library and its shims form one family, named by the shims' prefix: one Swift importer per family.
        var families: [String: Set<String>] = [:]
        for (module, who) in importers {
            let family = module.hasSuffix("Shims") ? String(module.dropLast("Shims".count)) : module
            families[family, default: []].formUnion(who)
        }
        for (family, who) in families {
            #expect(who.count == 1, "the C library \(family) is imported by \(who.sorted()): confine it to one module")
        }
    }

    @Test("no module imports one of its own or a higher layer (docs/architecture.md §2)")
    func layering() throws {
        let targets = try Self.manifestTargets()
        let names = Set(targets.map(\.name))
        for target in targets where target.kind != "testTarget" {
            guard let rank = Self.layers[target.name] else {
                Issue.record(
                    "\(target.name) has no layer: place it in docs/architecture.md §2 and in ManifestTests.layers")
                continue
            }
            for dependency in target.dependencies {
                guard let other = Self.layers[dependency] else { continue }  // reported above as a target
                #expect(other < rank, "\(target.name) (layer \(rank)) depends on \(dependency) (layer \(other))")
            }
            for (file, modules) in try Self.imports(of: target.name, packageModules: names) {
                for module in modules {
                    if let other = Self.layers[module] {
                        #expect(other < rank, "\(target.name)/\(file) imports \(module) of layer \(other) ≥ \(rank)")
                    }
                }
            }
        }
    }
}
