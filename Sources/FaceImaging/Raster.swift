/// A decoded 8-bit image: `channels` = 1 (grayscale) or 3 (RGB), rows top to bottom, no padding.
public struct Raster: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let channels: Int
    public let pixels: [UInt8]

    /// nil unless the dimensions are positive, channels is 1 or 3 and `pixels` holds exactly width × height × channels.
    public init?(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, channels == 1 || channels == 3 else { return nil }
        let area = width.multipliedReportingOverflow(by: height)
        let size = area.partialValue.multipliedReportingOverflow(by: channels)
        guard !area.overflow, !size.overflow, pixels.count == size.partialValue else { return nil }
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    init(unchecked width: Int, _ height: Int, _ channels: Int, _ pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }
}
