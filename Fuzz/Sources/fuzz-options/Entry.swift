// The "options" fuzz target (FuzzTarget.options); built and run by Fuzz/run (docs/reliability.md, "Fuzzing").
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzEntry.testOneInput(.options, data, size)
}

/// SwiftPM links an executable with `main` = `fuzz_options_main`: start libFuzzer's driver from here.
@_cdecl("fuzz_options_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzEntry.main(.options, argc, argv, fuzzTestOneInput)
}
