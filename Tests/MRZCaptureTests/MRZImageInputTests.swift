import Foundation
import MRZCapture
import Testing

/// Hostile or useless input is refused before (or without) decoding, with a reason that names no content.
struct MRZImageInputTests {
    static func pgm(width: Int, height: Int, value: UInt8 = 255, declare: (Int, Int)? = nil) -> [UInt8] {
        let (w, h) = declare ?? (width, height)
        return Array("P5\n\(w) \(h)\n255\n".utf8) + [UInt8](repeating: value, count: width * height)
    }

    @Test func notAnImageIsRefused() {
        #expect(throws: MRZCaptureError.self) { try MRZRecognizer.checkHeader(Array("P<UTOERIKSSON".utf8)) }
        do {
            _ = try MRZRecognizer.checkHeader(Array("GIF89a......".utf8))
            Issue.record("a GIF was accepted")
        } catch { #expect(error.code == .notAnImage) }
    }

    @Test func aHugeDeclaredSizeIsRefusedFromTheHeader() {
        // 100,000 × 100,000 declared, 16 bytes of data: refused before any decoding
        let bytes = Self.pgm(width: 4, height: 4, declare: (100_000, 100_000))
        do {
            _ = try MRZRecognizer.checkHeader(bytes)
            Issue.record("accepted")
        } catch { #expect(error.code == .tooLarge) }
        let limits = MRZCaptureLimits(maxInputBytes: 1000, maxSide: 8192, maxPixels: 24_000_000)
        do {
            _ = try MRZRecognizer.checkHeader(Self.pgm(width: 40, height: 40), limits: limits)
            Issue.record("accepted")
        } catch { #expect(error.code == .tooLarge) }
    }

    @Test func theAcceptedFormatsAreRecognisedByTheirHeader() throws {
        let h = try MRZRecognizer.checkHeader(Self.pgm(width: 64, height: 48))
        #expect(h.format == .pnm && h.width == 64 && h.height == 48)
    }

    @Test func anImageWithoutAZoneGivesNoMRZ() throws {
        let recognizer = try MRZRecognizer()
        do {
            _ = try recognizer.recognize(Self.pgm(width: 640, height: 480, value: 200))
            Issue.record("an MRZ was found in a blank image")
        } catch { #expect(error.code == .noMRZFound) }
    }

    @Test func truncatedImageDataIsADecodeFailure() throws {
        let recognizer = try MRZRecognizer()
        var bytes = Self.pgm(width: 640, height: 480)
        bytes.removeLast(200_000)
        #expect(throws: MRZCaptureError.self) { try recognizer.recognize(bytes) }
    }
}
