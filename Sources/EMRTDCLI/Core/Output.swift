import Foundation

/// Where the command writes: the report to stdout, progress and errors to stderr.
public enum Console {
    /// Whether stderr is a terminal that can redraw a line (a live progress line) or not (plain lines): not when
    /// TERM is unset or `dumb` (Emacs shells, some CI logs), which print `\r\e[2K` literally.
    public static let stderrIsTerminal: Bool = isLiveTerminal(
        isatty: isatty(2) != 0, term: ProcessInfo.processInfo.environment["TERM"])

    static func isLiveTerminal(isatty: Bool, term: String?) -> Bool {
        guard isatty, let term, !term.isEmpty, term != "dumb" else { return false }
        return true
    }

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
