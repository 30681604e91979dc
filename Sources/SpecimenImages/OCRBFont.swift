internal import CFreeType
import Foundation

/// The OCR-B typeface (ISO 1073-2, the MRZ font of ICAO 9303-3 §4.3) rendered through FreeType, glyph by glyph
/// into anti-aliased coverage bitmaps. Debian ships it in `fonts-ocr-b`.
public final class OCRBFont: @unchecked Sendable {
    /// Where `fonts-ocr-b` installs the font.
    public static let defaultPath = "/usr/share/fonts/opentype/ocr-b/OCRB.otf"

    struct Glyph {
        let width: Int
        let rows: Int
        /// Offset of the bitmap's left edge from the pen position, and of its top row above the baseline.
        let left: Int
        let top: Int
        let coverage: [UInt8]
    }

    private var library: FT_Library?
    private var face: FT_Face?
    private let lock = NSLock()
    private var cache: [String: Glyph] = [:]

    public init(path: String = OCRBFont.defaultPath) throws {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw SpecimenImageError("the OCR-B font is not at \(path) (Debian: apt-get install fonts-ocr-b)")
        }
        guard FT_Init_FreeType(&library) == 0, let library else { throw SpecimenImageError("FT_Init_FreeType failed") }
        guard FT_New_Face(library, path, 0, &face) == 0, face != nil else {
            FT_Done_FreeType(library)
            self.library = nil
            throw SpecimenImageError("FT_New_Face could not open \(path)")
        }
    }

    deinit {
        if let face { FT_Done_Face(face) }
        if let library { FT_Done_FreeType(library) }
    }

    /// The anti-aliased coverage (0…255, rows top to bottom) of `character` at `points` and `dpi`, and the offset of
    /// its top row above the baseline: what MRZCapture's reference glyph table is generated and checked from.
    public func coverage(of character: Character, points: Double, dpi: Int)
        -> (width: Int, rows: Int, top: Int, coverage: [UInt8])?
    {
        guard let g = glyph(character, points: points, dpi: dpi) else { return nil }
        return (g.width, g.rows, g.top, g.coverage)
    }

    /// The glyph of `character` at `points` and `dpi` (cached).
    func glyph(_ character: Character, points: Double, dpi: Int) -> Glyph? {
        let key = "\(character)|\(points)|\(dpi)"
        lock.lock()
        defer { lock.unlock() }
        if let g = cache[key] { return g }
        guard let face, let scalar = character.unicodeScalars.first else { return nil }
        guard FT_Set_Char_Size(face, 0, FT_F26Dot6(points * 64), FT_UInt(dpi), FT_UInt(dpi)) == 0,
            FT_Load_Char(face, FT_ULong(scalar.value), FT_Int32(FT_LOAD_RENDER)) == 0,
            let slot = face.pointee.glyph
        else { return nil }
        let bitmap = slot.pointee.bitmap
        let width = Int(bitmap.width)
        let rows = Int(bitmap.rows)
        var coverage = [UInt8](repeating: 0, count: width * rows)
        if let buffer = bitmap.buffer {
            let pitch = Int(bitmap.pitch)
            for y in 0..<rows {
                for x in 0..<width { coverage[y * width + x] = buffer[y * pitch + x] }
            }
        }
        let g = Glyph(
            width: width, rows: rows, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top),
            coverage: coverage)
        cache[key] = g
        return g
    }
}
