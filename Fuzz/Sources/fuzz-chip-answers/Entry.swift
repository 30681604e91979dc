// The "chip-answers" fuzz target (FuzzTarget.chipAnswers); built and run by Fuzz/run (docs/reliability.md, "Fuzzing").
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzEntry.testOneInput(.chipAnswers, data, size)
}

/// SwiftPM links an executable with `main` = `fuzz_chip_answers_main`: start libFuzzer's driver from here.
@_cdecl("fuzz_chip_answers_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzEntry.main(.chipAnswers, argc, argv, fuzzTestOneInput)
}
