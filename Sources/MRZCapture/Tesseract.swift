internal import CLeptonica
internal import CTesseract
import Foundation

/// One Tesseract engine (LSTM, the `eng` model) set up for MRZ lines: the character whitelist `A–Z 0–9 <`, one text
/// line per image, no dictionaries (an MRZ is not English). Not reentrant: the owner serialises calls.
final class TesseractEngine {
    private let api: OpaquePointer

    /// A recognised character, with its box in the line image and Tesseract's confidence (0…100).
    struct Symbol {
        let character: Character
        let left: Int
        let right: Int
        let confidence: Double
        /// OCR sometimes returns several characters for one box: this one's place among them.
        var index = 0
        var of = 1
    }

    init(dataPath: String?) throws(MRZCaptureError) {
        guard let api = TessBaseAPICreate() else {
            throw MRZCaptureError(.engineUnavailable, "TessBaseAPICreate failed")
        }
        self.api = api
        // Dictionary loading is an init-only parameter: pass it to Init4.
        let names = ["load_system_dawg", "load_freq_dawg", "load_punc_dawg", "load_number_dawg", "load_bigram_dawg"]
        let values = names.map { _ in "0" }
        let cNames = names.map { strdup($0) }
        let cValues = values.map { strdup($0) }
        defer {
            for p in cNames { free(p) }
            for p in cValues { free(p) }
        }
        var namePtrs = cNames
        var valuePtrs = cValues
        let status = namePtrs.withUnsafeMutableBufferPointer { n in
            valuePtrs.withUnsafeMutableBufferPointer { v in
                TessBaseAPIInit4(api, dataPath, "eng", OEM_LSTM_ONLY, nil, 0, n.baseAddress, v.baseAddress, n.count, 0)
            }
        }
        guard status == 0 else {
            TessBaseAPIDelete(api)
            throw MRZCaptureError(
                .engineUnavailable, "Tesseract could not load its eng model (Debian: apt-get install tesseract-ocr-eng)"
            )
        }
        _ = TessBaseAPISetVariable(api, "tessedit_char_whitelist", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<")
        _ = TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        TessBaseAPISetPageSegMode(api, PSM_SINGLE_LINE)
    }

    deinit {
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
    }

    /// The characters of one line image (8-bit), left to right.
    func read(_ image: PixImage) -> [Symbol] {
        defer { TessBaseAPIClear(api) }
        let bytes = image.grayBytes()
        bytes.withUnsafeBufferPointer { b in
            TessBaseAPISetImage(api, b.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.width))
        }
        TessBaseAPISetSourceResolution(api, 300)
        guard TessBaseAPIRecognize(api, nil) == 0, let it = TessBaseAPIGetIterator(api) else { return [] }
        defer { TessResultIteratorDelete(it) }
        var out: [Symbol] = []
        let level = RIL_SYMBOL
        let page = TessResultIteratorGetPageIterator(it)
        repeat {
            guard let text = TessResultIteratorGetUTF8Text(it, level) else { continue }
            let s = String(cString: text)
            TessDeleteText(text)
            var l: Int32 = 0
            var t: Int32 = 0
            var r: Int32 = 0
            var bt: Int32 = 0
            guard TessPageIteratorBoundingBox(page, level, &l, &t, &r, &bt) != 0 else { continue }
            let conf = Double(TessResultIteratorConfidence(it, level))
            let chars = s.filter { $0 != " " }
            for (k, c) in chars.enumerated() {
                out.append(
                    Symbol(character: c, left: Int(l), right: Int(r), confidence: conf, index: k, of: chars.count))
            }
        } while TessResultIteratorNext(it, level) != 0
        return out
    }
}
