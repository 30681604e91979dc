import Foundation

/// A TestVectors/ JSON file with hex accessors (test-only).
public struct Vector: @unchecked Sendable {
    public let name: String
    public let fields: [String: Any]

    public init(_ name: String) throws {
        self.name = name
        fields = try loadVectorFile(name)
    }
    public init(name: String, fields: [String: Any]) {
        self.name = name
        self.fields = fields
    }

    /// A hex field as bytes; a missing field traps with the file and key named.
    public subscript(_ key: String) -> [UInt8] {
        guard let s = fields[key] as? String else { preconditionFailure("\(name): no field \(key)") }
        return hex(s)
    }
    public func string(_ key: String) -> String {
        guard let s = fields[key] as? String else { preconditionFailure("\(name): no field \(key)") }
        return s
    }
    public func nested(_ key: String) -> Vector {
        guard let d = fields[key] as? [String: Any] else { preconditionFailure("\(name): no object \(key)") }
        return Vector(name: name + "." + key, fields: d)
    }
    public func list(_ key: String) -> [Vector] {
        guard let a = fields[key] as? [[String: Any]] else { preconditionFailure("\(name): no list \(key)") }
        return a.enumerated().map { Vector(name: "\(name).\(key)[\($0.offset)]", fields: $0.element) }
    }
}

public func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }
