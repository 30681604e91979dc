import MRTDTrust
import Testing

/// A check's detail is one line whatever its source text held.
struct VerificationCheckTests {
    @Test(arguments: [
        ("signature verified", "signature verified"),
        ("line one\nline two", "line one line two"),
        ("CRLF\r\nend", "CRLF end"),
        ("line\u{2028}separator", "line separator"),
        ("next\u{85}line", "next line"),
        ("Ærø ü — no break", "Ærø ü — no break"),
    ])
    func detailIsOneLine(_ input: String, _ expected: String) {
        #expect(VerificationCheck.passed(.sodSignature, input).detail == expected)
    }
}
