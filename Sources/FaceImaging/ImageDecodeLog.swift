import Synchronization

/// What the decoders were asked to produce: one entry per call into OpenJPEG's or libjpeg-turbo's decoder, with
/// the output size it was set up for (after resolution reduction or DCT scaling). Tests and `emrtd bench` set
/// one for a task (`ImageDecodeLog.$current.withValue`) to show by structure — never by time — that hostile
/// images were refused before the library allocated, or decoded at a bounded size.
public final class ImageDecodeLog: Sendable {
    public struct Entry: Sendable, Hashable {
        public var format: CodecFormat
        /// The size the decoder's output has: the declared size, reduced to fit `ImageLimits.maxDecodedPixels`.
        public var width: Int
        public var height: Int
        /// Components handed back (after a JP2 palette is expanded).
        public var components: Int
        /// width × height × components.
        public var samples: Int { width * height * components }
    }

    @TaskLocal public static var current: ImageDecodeLog?

    private let recorded = Mutex<[Entry]>([])

    public init() {}

    /// Every decoder call so far, in order.
    public var entries: [Entry] { recorded.withLock { $0 } }

    static func record(_ format: CodecFormat, _ width: Int, _ height: Int, _ components: Int) {
        guard let log = current else { return }
        log.recorded.withLock {
            $0.append(Entry(format: format, width: width, height: height, components: components))
        }
    }
}
