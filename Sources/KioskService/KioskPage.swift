import MRTDReader

/// The kiosk page served at `/` (docs/kiosk.md): HTML, CSS and vanilla JavaScript (the files in `Resources/`,
/// embedded in the binary by SwiftPM), no build step, nothing fetched from elsewhere. The page is a client of the API
/// v1 like any other: it reads the reader status from `/v1/readers` and `/v1/events`, starts a read with
/// `POST /v1/reads`, follows `/v1/reads/{id}/events`, shows the result the HTML report's way
/// (`/v1/reads/{id}/result.html`, styled by the report's own style sheet) and the face (`/v1/reads/{id}/face`), and
/// `DELETE`s the read on "next person" or after the idle time.
public enum KioskPage {
    /// What `emrtd serve` configures about the page.
    public struct Settings: Sendable, Hashable {
        /// Seconds a result, an error or unsent access data stays on screen without a touch before the page
        /// clears itself and deletes the read (`--kiosk-idle`).
        public var idleSeconds: Double

        public static let defaultIdleSeconds = 60.0
        public static let idleRange = 5.0...3600.0

        public init(idleSeconds: Double = Self.defaultIdleSeconds) {
            self.idleSeconds = min(max(idleSeconds, Self.idleRange.lowerBound), Self.idleRange.upperBound)
        }
    }

    /// The page's policy: its own script and styles only (no inline script or style), images from the
    /// service, `data:` and the face's `blob:` URL, requests to the service only, no frames, no form posts.
    public static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' data: blob:; script-src 'self'; style-src 'self'; connect-src 'self'; "
        + "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The page at `/`.
    public static func html(_ settings: Settings) -> String {
        let idle = String(Int(settings.idleSeconds.rounded()))
        return page.replacingOccurrences(of: "{{IDLE}}", with: idle)
    }

    /// `/kiosk.css`: the HTML report's style sheet, then the page's own rules (the result looks as the report does).
    public static let css = HTMLReport.style + "\n" + pageStyle

    /// The page's HTML (`Resources/kiosk.html`), `{{IDLE}}` standing for the idle seconds.
    static let page = String(decoding: PackageResources.kiosk_html, as: UTF8.self)

    /// The page's own rules (`Resources/kiosk-page.css`).
    static let pageStyle = String(decoding: PackageResources.kiosk_page_css, as: UTF8.self)

    /// `/kiosk.js` (`Resources/kiosk.js`).
    public static let script = String(decoding: PackageResources.kiosk_js, as: UTF8.self)
}
