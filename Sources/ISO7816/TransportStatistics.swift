/// Counters a transport keeps: APDUs, bytes each way, time on the link.
public struct TransportStatistics: Hashable, Sendable {
    public var apdus: Int = 0
    public var bytesSent: Int = 0
    public var bytesReceived: Int = 0
    /// Number of APDUs per instruction byte (INS), e.g. `[0xB0: 90]`.
    public var apdusByInstruction: [UInt8: Int] = [:]
    /// Wall-clock nanoseconds spent in `transmit`.
    public var nanoseconds: UInt64 = 0

    public init() {}

    public mutating func record(command: [UInt8], response: [UInt8], ins: UInt8, nanoseconds ns: UInt64) {
        apdus += 1
        bytesSent += command.count
        bytesReceived += response.count
        apdusByInstruction[ins, default: 0] += 1
        nanoseconds += ns
    }

    public static func - (a: TransportStatistics, b: TransportStatistics) -> TransportStatistics {
        var d = TransportStatistics()
        d.apdus = a.apdus - b.apdus
        d.bytesSent = a.bytesSent - b.bytesSent
        d.bytesReceived = a.bytesReceived - b.bytesReceived
        d.nanoseconds = a.nanoseconds &- b.nanoseconds
        for (k, v) in a.apdusByInstruction { d.apdusByInstruction[k] = v - (b.apdusByInstruction[k] ?? 0) }
        return d
    }
}
