import Foundation

/// What trust-material loading accepts (docs/reliability.md, "Limits"). Every file named by `--trust` or
/// `--ml-signer-root` is opened only when it is a regular file (a FIFO or a device would block or never
/// end), its reported size is checked against `maxFileBytes` before anything is read, and it is read in
/// bounded chunks that stop at the cap whatever the size said. Each kind then has its own cap, checked
/// before it is parsed; a master list's signature is verified before its certificates are parsed.
public enum TrustLimits {
    /// A CSCA master list: 16 MiB. The German list of ~580 CSCAs is 0.9 MB, the Dutch one of ~410 is
    /// 0.6 MB.
    public static let maxMasterListBytes = 16 * 1024 * 1024

    /// One certificate: 64 KiB. CSCA and document-signer certificates are 0.8–2.5 KB (a 8192-bit RSA
    /// key and signature make about 2.5 KB).
    public static let maxCertificateBytes = 64 * 1024

    /// One CRL: 4 MiB. CSCA CRLs list a handful of revoked document signers (the Colombian one is under
    /// 1 KB); 4 MiB leaves room for tens of thousands of entries.
    public static let maxCRLBytes = 4 * 1024 * 1024

    /// A PEM file: 16 MiB of text (about 9,000 certificates; a PEM export of the German master list is
    /// 1.2 MB).
    public static let maxPEMBytes = 16 * 1024 * 1024

    /// PEM blocks (certificates or CRLs) in one file: 4,096. The largest genuine bundle is a master list's
    /// content written out: 588 CSCAs in the German list; every CSCA in use worldwide is estimated under 2,000.
    public static let maxPEMBlocks = 4096

    /// One PEM block's decoded size: 4 MiB (`maxCRLBytes`, the largest certificate or CRL; CSCA master lists
    /// come as DER files of about a megabyte). A longer body is refused while the text is split, before it is
    /// decoded: a 10 MB body cost 4× the German PEM to split, decode and find to be nothing.
    public static let maxPEMBlockBytes = maxCRLBytes

    /// PEM text of 64 KiB or more averaging fewer bytes than this per line is refused before it is split: RFC 7468 writers wrap
    /// base64 at 64 characters (65–66 bytes a line with its break), and a header line is longer than 16. Without it,
    /// 10 MB of 2-character lines (3.3 million lines, each split and appended) cost 6.6× the German PEM.
    public static let minPEMBytesPerLine = 16

    /// The largest file read at all: the largest of the caps above.
    public static let maxFileBytes = max(maxMasterListBytes, maxPEMBytes, maxCRLBytes, maxCertificateBytes)

    /// What one `TrustStore.load(paths:)` reads in all (it holds the files until certificates, master lists
    /// and CRLs are added in that order): 64 MiB. A folder with the master lists of every country that
    /// publishes one (~50 lists of 0.2–1 MB) and their roots is estimated under 50 MB.
    public static let maxLoadBytes = 64 * 1024 * 1024

    /// Files one `load(paths:)` takes from folders: 16,384. A folder of every CSCA certificate of the ICAO
    /// PKD, one per file, is estimated under 2,000.
    public static let maxLoadFiles = 16_384

    /// Reads a regular file of at most `limit` bytes. Refuses, without opening it, anything that is not a
    /// regular file (FIFO, device, socket: opening a FIFO blocks until a writer comes), and a file whose
    /// size is above `limit`; the open itself is non-blocking (the file may be swapped between the check
    /// and the open). Reads in chunks of at most 1 MiB and stops at `limit` + 1 bytes whatever `stat`
    /// said (a file may grow, a size may lie), so memory stays below `limit` plus one chunk.
    public static func readRegularFile(
        _ path: String, limit: Int = maxFileBytes,
        limitName: String = "TrustLimits.maxFileBytes"
    ) throws(TrustError) -> [UInt8] {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw TrustError(.unreadable, .trustStore, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        try checkRegular(st, path)
        try checkSize(Int(st.st_size), path, limit: limit, limitName)
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw TrustError(.unreadable, .trustStore, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        return try readOpened(fd, path, limit: limit, limitName: limitName)
    }

    /// `readRegularFile` for the file `name` directly inside the folder open as `directory` (a file descriptor),
    /// never through a symbolic link (`O_NOFOLLOW`, and `fstatat` with `AT_SYMLINK_NOFOLLOW` before): a link is
    /// refused by name, wherever it points. nil when there is no such entry. An evidence bundle's files are read so
    /// (docs/report.md, "Evidence bundle").
    public static func readRegularFile(
        named name: String, inDirectory directory: Int32, limit: Int, limitName: String
    ) throws(TrustError) -> [UInt8]? {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw TrustError(.unreadable, .trustStore, "\(name) is not a file name inside the folder")
        }
        var st = stat()
        guard fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return nil }
            throw TrustError(.unreadable, .trustStore, "cannot read \(name): \(String(cString: strerror(errno)))")
        }
        guard st.st_mode & S_IFMT != S_IFLNK else {
            throw TrustError(
                .unreadable, .trustStore,
                "\(name) is a symbolic link: only files inside the folder itself are read, never through a link")
        }
        try checkRegular(st, name)
        try checkSize(Int(st.st_size), name, limit: limit, limitName)
        let fd = openat(directory, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            // ELOOP: it became a link between the check and the open
            throw TrustError(.unreadable, .trustStore, "cannot open \(name): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        return try readOpened(fd, name, limit: limit, limitName: limitName)
    }

    /// The bounded read of an open file, after checking again what `fstat` says of it.
    private static func readOpened(_ fd: Int32, _ path: String, limit: Int, limitName: String) throws(TrustError)
        -> [UInt8]
    {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw TrustError(.unreadable, .trustStore, "cannot read \(path)") }
        try checkRegular(st, path)
        try checkSize(Int(st.st_size), path, limit: limit, limitName)
        var out: [UInt8] = []
        out.reserveCapacity(min(Int(st.st_size), limit) + 1)
        // A chunk the size the file says (+1 to see its end in one read), at least 4 KiB, at most 1 MiB: a
        // fixed 1 MiB buffer, zeroed for every file, cost more than reading a small file (a bundle's DG1, a PEM).
        let chunk = min(1 << 20, max(4096, min(Int(st.st_size), limit) + 1))
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, chunk) }
            if n < 0 {
                if errno == EINTR { continue }
                throw TrustError(.unreadable, .trustStore, "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { return out }
            out.append(contentsOf: buffer[..<n])
            try checkSize(out.count, path, limit: limit, limitName)
        }
    }

    private static func checkRegular(_ st: stat, _ path: String) throws(TrustError) {
        let type = st.st_mode & S_IFMT
        guard type == S_IFREG else {
            let what: String
            switch type {
            case S_IFIFO: what = "a FIFO"
            case S_IFCHR: what = "a character device"
            case S_IFBLK: what = "a block device"
            case S_IFSOCK: what = "a socket"
            case S_IFDIR: what = "a folder"
            default: what = "not a regular file"
            }
            throw TrustError(.unreadable, .trustStore, "\(path) is \(what): only regular files are read")
        }
    }

    private static func checkSize(_ size: Int, _ path: String, limit: Int, _ name: String) throws(TrustError) {
        guard size <= limit else {
            throw TrustError(.limitExceeded, .trustStore, "\(path) holds more than \(limit) bytes (\(name))")
        }
    }

    /// `limitExceeded` naming the cap when `count` bytes of `kind` exceed it.
    static func check(_ count: Int, kind: TrustStore.FileKind, step: TrustError.Step) throws(TrustError) {
        let (cap, name): (Int, String)
        switch kind {
        case .certificate: (cap, name) = (maxCertificateBytes, "maxCertificateBytes")
        case .crl: (cap, name) = (maxCRLBytes, "maxCRLBytes")
        case .masterList: (cap, name) = (maxMasterListBytes, "maxMasterListBytes")
        }
        guard count <= cap else {
            throw TrustError(
                .limitExceeded, step,
                "\(kind.rawValue) of \(count) bytes exceeds the limit of \(cap) bytes (TrustLimits.\(name))")
        }
    }
}
