import Foundation

/// Where the command writes: the report to stdout, progress and errors to stderr.
public enum Console {
    /// Whether stderr is a terminal (a live progress line) or not (plain lines).
    public static let stderrIsTerminal: Bool = isatty(2) != 0

    public static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    public static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Overwrites the current terminal line (or prints a plain line when stderr is not a terminal).
    public static func live(_ text: String) {
        if stderrIsTerminal {
            FileHandle.standardError.write(Data(("\r\u{1B}[2K" + text).utf8))
        } else {
            err(text)
        }
    }

    /// Ends a live line.
    public static func endLive() {
        if stderrIsTerminal { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }
}

/// Exit statuses of DESIGN.md §4.1.
public enum ExitCode {
    public static let accepted: Int32 = 0
    public static let ok: Int32 = 0
    public static let usage: Int32 = 2
    public static let transport: Int32 = 3
    public static let accessControl: Int32 = 4
    public static let trust: Int32 = 5
    public static let inconclusive: Int32 = 10
    public static let rejected: Int32 = 11
}
