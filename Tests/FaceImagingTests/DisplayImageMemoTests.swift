import DocumentGenerator
import FaceImaging
import Testing

/// `DisplayImageMemo`: within one, each image is decoded once whatever asks for it (`check`, `displayJPEG`), the
/// answers equal those without a memo, at most `maxEntries` are kept, and `forget` drops them.
@Suite struct DisplayImageMemoTests {
    static func face(_ width: Int) throws -> [UInt8] {
        let raster = try #require(
            Raster(width: width, height: 60, channels: 1, pixels: SyntheticFace.pixels(width: width, height: 60)))
        return try JPEG2000Codec.encode(raster, container: .jp2, targetBytes: 800)
    }

    @Test func eachImageIsDecodedOnceWithinAMemo() throws {
        let (a, b, c) = (try Self.face(40), try Self.face(44), try Self.face(48))
        let plain = try DisplayImage.displayJPEG(from: a)
        let memo = DisplayImageMemo()
        let log = ImageDecodeLog()
        try DisplayImageMemo.$current.withValue(memo) {
            try ImageDecodeLog.$current.withValue(log) {
                try DisplayImage.check(a)
                #expect(try DisplayImage.displayJPEG(from: a) == plain, "the kept conversion is the conversion")
                #expect(try DisplayImage.displayJPEG(from: a) == plain)
                #expect(log.entries.count == 1, "\(log.entries)")
                // a failure is kept too
                #expect(throws: ImageCodecError.self) { try DisplayImage.check([0xFF, 0xD8, 0xFF]) }
                #expect(throws: ImageCodecError.self) { try DisplayImage.displayJPEG(from: [0xFF, 0xD8, 0xFF]) }
                #expect(memo.count == DisplayImageMemo.maxEntries)
                // no room left: converted each time, never kept
                _ = try DisplayImage.displayJPEG(from: b)
                _ = try DisplayImage.displayJPEG(from: b)
                #expect(memo.count == DisplayImageMemo.maxEntries)
                #expect(log.entries.filter { $0.width == 44 }.count == 2)
            }
        }
        memo.forget()
        #expect(memo.count == 0)
        // without a memo nothing is kept: every call decodes
        let free = ImageDecodeLog()
        try ImageDecodeLog.$current.withValue(free) {
            try DisplayImage.check(c)
            _ = try DisplayImage.displayJPEG(from: c)
        }
        #expect(free.entries.count == 2)
    }
}
