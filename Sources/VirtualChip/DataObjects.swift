import ASN1TLV

/// Tag-length-value helpers for command data objects (ISO/IEC 7816-4 §5.2 BER-TLV).
enum DataObjects {
    /// The data objects of a command data field, by tag (the first occurrence of each tag wins).
    static func parse(_ data: [UInt8]) throws(ChipFailure) -> [UInt32: [UInt8]] {
        do {
            var out: [UInt32: [UInt8]] = [:]
            for node in try TLVParser.parseAll(data, rules: .ber) where out[node.tag] == nil {
                out[node.tag] = node.valueBytes
            }
            return out
        } catch {
            throw .wrongData
        }
    }

    /// Parses a DO'7C' (dynamic authentication data, ICAO 9303-11 §4.4.4.2) and returns its inner
    /// objects by tag.
    static func dynamicAuthenticationData(_ data: [UInt8]) throws(ChipFailure) -> [UInt32: [UInt8]] {
        let outer: TLVNode
        do {
            outer = try TLVParser.parse(data, rules: .ber)
        } catch {
            throw .wrongData
        }
        guard outer.tag == 0x7C else { throw .wrongData }
        return try parse(outer.valueBytes)
    }

    /// DO'7C' with the given inner objects.
    static func dynamicAuthenticationResponse(_ objects: [(UInt32, [UInt8])]) -> [UInt8] {
        TLVWriter.encode(0x7C, objects.flatMap { TLVWriter.encode($0.0, $0.1) })
    }

    static func encode(_ tag: UInt32, _ value: [UInt8]) -> [UInt8] { TLVWriter.encode(tag, value) }

    /// Minimal big-endian encoding of a non-negative integer (DO'54' offsets and the like).
    static func unsigned(_ bytes: [UInt8]) -> Int? {
        guard bytes.count <= 4 else { return nil }
        return bytes.reduce(0) { $0 << 8 | Int($1) }
    }
}
