/// The card side of the link: something that answers command APDUs like a chip (the virtual
/// eMRTD chip). Bridges such as the in-process `LocalCardTransport` or the vpcd connection drive it.
public protocol CardEmulator: AnyObject, Sendable {
    /// Answer-to-reset bytes.
    var atr: [UInt8] { get }
    /// The field comes up: the chip starts fresh (no selected application, no session).
    func powerOn()
    /// The field goes away.
    func powerOff()
    /// A warm reset: like power off + on.
    func reset()
    /// Processes one encoded command APDU and returns the encoded response (data || SW).
    func process(_ command: [UInt8]) -> [UInt8]
}
