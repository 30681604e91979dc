public import Foundation

/// URL rules of the glue (docs/architecture.md §8.2): every URL it calls must be HTTPS; plain HTTP is allowed
/// only to a loopback host (`localhost`, `127.0.0.0/8`, `::1`), for tests and local stand-ins.
public enum URLPolicy {
    /// Parses and checks a URL; throws `invalidURL` or `insecureURL` naming `field`.
    public static func validate(_ text: String, field: String, step: StepUpError.Step) throws -> URL {
        let shown = String(text.prefix(200))
        guard let c = URLComponents(string: text), let scheme = c.scheme?.lowercased(),
            let host = c.host, !host.isEmpty, let url = c.url
        else {
            throw StepUpError(
                .invalidURL, step: step, field: field, expected: "an absolute https URL with a host",
                reason: "`\(field)` \"\(shown)\" is not an absolute URL")
        }
        if c.user != nil || c.password != nil {
            throw StepUpError(
                .invalidURL, step: step, field: field, expected: "a URL without user information",
                reason: "`\(field)` carries user information, which is not accepted")
        }
        switch scheme {
        case "https":
            return url
        case "http" where isLoopback(host):
            return url
        default:
            throw StepUpError(
                .insecureURL, step: step, field: field,
                expected: "https (plain http only to a loopback host)",
                reason: "`\(field)` uses \(scheme) to \(host)")
        }
    }

    /// Loopback hosts: `localhost`, any `127.x.y.z`, `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { p in UInt8(p) != nil }
    }

    /// Appends one path segment (or a relative path) to a base URL, with exactly one `/` between
    /// them whether or not the base ends in `/` or the path starts with one; query and fragment of
    /// the base are kept. `join(https://h/v2, "videoid.request")` and
    /// `join(https://h/v2/, "videoid.request")` both give `https://h/v2/videoid.request`.
    public static func join(_ base: URL, _ path: String) -> URL {
        guard var c = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            return base.appendingPathComponent(path)
        }
        var left = c.percentEncodedPath
        while left.hasSuffix("/") { left.removeLast() }
        var right = Substring(path)
        while right.hasPrefix("/") { right.removeFirst() }
        c.percentEncodedPath = right.isEmpty ? left + "/" : left + "/" + right
        return c.url ?? base.appendingPathComponent(path)
    }
}
