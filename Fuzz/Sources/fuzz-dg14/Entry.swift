// The "dg14" fuzz target (FuzzTarget.dg14); built and run by Fuzz/run (docs/reliability.md, "Fuzzing").
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzEntry.testOneInput(.dg14, data, size)
}

/// SwiftPM links an executable with `main` = `fuzz_dg14_main`: start libFuzzer's driver from here.
@_cdecl("fuzz_dg14_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzEntry.main(.dg14, argc, argv, fuzzTestOneInput)
}
