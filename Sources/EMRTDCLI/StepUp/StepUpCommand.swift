public import StepUp

/// `emrtd stepup …` (issue 6, docs/stepup.md). `arguments` are the words after `stepup`.
///
/// The executable passes the real `ReadIDChipReader` (built on `DocumentReader`) and, for
/// `--bind-process-id`, MRTDCrypto's SHA-256. Output goes to the process's stdout/stderr; the
/// HTTP transport is URLSession.
public func runStepUpCommand(arguments: [String], environment: [String: String],
                             chipReader: (any ReadIDChipReader)?,
                             sha256: (@Sendable ([UInt8]) -> [UInt8])? = nil) async -> Int32 {
    await StepUpCommandLine.run(arguments: arguments, environment: environment, chipReader: chipReader,
                                sha256: sha256, io: .standard())
}
