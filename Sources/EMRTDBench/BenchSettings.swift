public import MRTDDocument
public import MRTDReader

/// What `emrtd bench` was asked to do (the command's options, parsed and checked by EMRTDCLI's `BenchCommand`).
public struct BenchSettings: Sendable {
    /// The report page of a read (`read --html`), as the command line writes it: the hostile-image rows render it
    /// for every read they time. Supplied by the command line, which owns that page.
    public typealias PageRenderer = @Sendable (ReadReport, [LDSFile: [UInt8]]) -> String

    public var json = false
    public var runs = 5
    public var quick = false
    public var link = LinkModel()
    /// Consecutive reads for the memory-growth check.
    public var loopReads = 1000
    public var masterLists: String? = nil
    public var profiles: [String] = BenchSettings.allProfiles
    public var dg2Sizes: [Int] = [15_000, 60_000]
    public var modes: [Bool] = [false, true]
    /// Only the trust-store workloads (master lists, passive authentication): for working on them.
    public var trustOnly = false
    /// Only the hostile image rows (`--hostile-images`).
    public var hostileImagesOnly = false
    public var page: PageRenderer

    public init(page: @escaping PageRenderer) {
        self.page = page
    }

    public static let allProfiles = [
        "bac", "pace-gm-brainpool-aes128", "pace-gm-p256-aes256", "pace-im-ecdh", "pace-cam", "pace-gm-dh-3des",
    ]

    /// `--quick`: DG2 15 KB only, 3 runs, 100 reads in the memory loop.
    public mutating func makeQuick() {
        quick = true
        runs = 3
        loopReads = 100
        dg2Sizes = [15_000]
    }

    public static let discussion = """
        Where the time of a read goes: APDUs, bytes, CPU and modelled link time per profile and
        phase, each beside its floor (docs/performance.md). Reads the virtual passport in process; build in release mode:

            swift run -c release emrtd bench [--json] [--runs N] [--quick]

        Matrix: BAC/3DES, PACE-GM-ECDH brainpoolP256r1/AES-128, PACE-GM-ECDH P-256/AES-256, PACE-IM, PACE-CAM,
        PACE-GM-DH/3DES × short APDUs only / extended length × DG2 of 15 KB / 60 KB. Also: the cost of the
        OpenSSL primitives each phase needs, the German and Dutch master lists loaded and compared with
        `openssl cms -verify`, hostile inputs refused beside genuine ones of the same kind, peak memory,
        and RSS before/after 1,000 consecutive reads.

        CPU is process CPU time (CLOCK_PROCESS_CPUTIME_ID) with the virtual chip's own time measured inside a
        wrapper around VirtualChip.process and reported apart.
        """
}
