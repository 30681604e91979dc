import FaceImaging
import Foundation
import MRTDDocument
import MRTDReader

/// `--html FILE` (read, demo, verify, stepup run): the report as one self-contained HTML page
/// (`HTMLReport`, docs/report.md "HTML report"), with the face converted to JPEG when DG2 stores JPEG 2000.
enum HTMLOutput {
    static let option = OptionDecl(
        "html", value: "FILE", kind: .file,
        help: "also write the report as one self-contained, printable HTML page (face included; readable by you only)")

    /// Runs `body` — one read or verification with its report, bundle and page — with one `DisplayImageMemo`: the
    /// report's face check, the bundle's `face.jpg`, `verify`'s check of it and the page then decode the face once
    /// between them. What the memo kept is overwritten and dropped when `body` ends.
    static func decodingOnce<R, E: Error>(_ body: () async throws(E) -> R) async throws(E) -> R {
        let memo = DisplayImageMemo()
        defer { memo.forget() }
        let result: Result<R, E> = await DisplayImageMemo.$current.withValue(memo) {
            do throws(E) { return .success(try await body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Checked before a document is asked for (`OutputFile.prepare`).
    static func prepare(_ path: String?, command: String) throws(CLIError) -> String? {
        try OutputFile.prepare(path, option: "--html", what: "the page")
    }

    /// The page for `report` over the files it was made from: the face (JPEG as stored, JPEG 2000 re-encoded as
    /// JPEG; none when it does not decode — the report's faceImage.error says why) and the document's other images.
    static func page(_ report: ReadReport, files: [LDSFile: [UInt8]]) -> String {
        let lds = LDSDocument(files: files)
        var face: HTMLReport.Image? = nil
        if let stored = lds.faceImage, let jpeg = try? DisplayImage.displayJPEG(from: stored.imageData) {
            face = HTMLReport.Image(label: "Face (DG2)", bytes: jpeg, mimeType: "image/jpeg")
        }
        return HTMLReport.render(report, face: face, images: HTMLReport.displayable(HTMLReport.documentImages(lds)))
    }

    /// Writes the page completely or not at all (a temporary file beside it, then renamed), mode 0600.
    static func write(_ report: ReadReport, files: [LDSFile: [UInt8]], to path: String) throws(CLIError) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).partial-\(UUID().uuidString)")
        let fm = FileManager.default
        guard
            fm.createFile(
                atPath: temporary.path, contents: Data(page(report, files: files).utf8),
                attributes: [.posixPermissions: 0o600]),
            rename(temporary.path, url.path) == 0
        else {
            try? fm.removeItem(at: temporary)
            throw CLIError(
                .cannotWrite, "could not write the HTML report to \(Shown.path(path)); nothing was written there",
                status: .usage)
        }
    }
}

/// A file an option names for output (`--html`, `--trace`), checked before a document is asked for: FILE is not a
/// folder and can be opened for writing. The check opens it (creating it, then removing what it created): only
/// that answers for root, for whom `access(2)` says yes to anything, and for files such as `/proc/x`.
enum OutputFile {
    static func prepare(_ path: String?, option: String, what: String) throws(CLIError) -> String? {
        guard let path else { return nil }
        guard !path.isEmpty else {
            throw CLIError(.outputNotUsable, "\(option) is empty: name the file for \(what)", status: .usage)
        }
        let url = URL(fileURLWithPath: path).standardizedFileURL
        var isDir: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir)
        if exists, isDir.boolValue {
            throw CLIError(
                .outputNotUsable, "\(option) \(Shown.path(path)) is a folder: name a file for \(what)", status: .usage)
        }
        let fd = open(url.path, O_WRONLY | O_CREAT, 0o600)
        if fd >= 0 {
            close(fd)
            if !exists { unlink(url.path) }
        }
        guard fd >= 0 else {
            throw CLIError(
                .outputNotUsable,
                "\(option) \(Shown.path(path)) cannot be written: its folder does not exist or is not writable",
                status: .usage)
        }
        return url.path
    }
}
