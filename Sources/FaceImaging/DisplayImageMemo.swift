import Synchronization

/// The display conversions of one scope — one `emrtd` invocation — kept so that each stored image is decoded once:
/// the report's face check, the evidence bundle's `face.jpg`, `verify`'s check of it and the HTML page all ask for
/// the same face. Set for a task with `DisplayImageMemo.$current.withValue`; `DisplayImage.displayJPEG` (and
/// `DisplayImage.check`) then reuse an earlier conversion of the same bytes under the same limits, failures included.
/// Bounded: at most `maxEntries` images are kept (a later one is converted each time it is asked for, as without a
/// memo), each within `ImageLimits` (input and output bytes). The bytes are personal data: `forget()` overwrites
/// what the memo holds (where no one else shares the buffer) and drops it; the scope's owner calls it when done.
public final class DisplayImageMemo: Sendable {
    /// The memo of the current task, if any. A detached task does not inherit it: pass it on explicitly.
    @TaskLocal public static var current: DisplayImageMemo?

    /// Most conversions kept: the face (and a second image, e.g. a face read again after a resumption).
    public static let maxEntries = 2

    struct Entry {
        var stored: [UInt8]
        var limits: ImageLimits
        var result: Result<(jpeg: [UInt8], pixels: Int), ImageCodecError>
    }

    private let entries = Mutex<[Entry]>([])

    public init() {}

    /// How many conversions are kept.
    public var count: Int { entries.withLock { $0.count } }

    /// The conversion of `stored` under `limits`: the kept one, else `convert()`'s, kept while there is room.
    func display(
        _ stored: [UInt8], limits: ImageLimits,
        convert: () throws(ImageCodecError) -> (jpeg: [UInt8], pixels: Int)
    ) throws(ImageCodecError) -> (jpeg: [UInt8], pixels: Int) {
        let kept = entries.withLock { list in
            list.first { $0.limits == limits && $0.stored == stored }?.result
        }
        let result: Result<(jpeg: [UInt8], pixels: Int), ImageCodecError>
        if let kept {
            result = kept
        } else {
            do throws(ImageCodecError) { result = .success(try convert()) } catch { result = .failure(error) }
            entries.withLock { list in
                // another task may have converted the same image meanwhile: keep one
                guard list.count < Self.maxEntries,
                    !list.contains(where: { $0.limits == limits && $0.stored == stored })
                else { return }
                list.append(Entry(stored: stored, limits: limits, result: result))
            }
        }
        return try result.get()
    }

    /// Overwrites the kept bytes and drops them.
    public func forget() {
        entries.withLock { list in
            for i in list.indices {
                list[i].stored.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                if case .success(var made) = list[i].result {
                    list[i].result = .failure(ImageCodecError(.empty, nil, "forgotten"))
                    made.jpeg.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                }
            }
            list.removeAll()
        }
    }

    deinit { forget() }
}
