// The "dg1" fuzz target (FuzzTarget.dg1); built and run by Fuzz/run (docs/reliability.md, "Fuzzing").
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzEntry.testOneInput(.dg1, data, size)
}

/// SwiftPM links an executable with `main` = `fuzz_dg1_main`: start libFuzzer's driver from here.
@_cdecl("fuzz_dg1_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzEntry.main(.dg1, argc, argv, fuzzTestOneInput)
}
