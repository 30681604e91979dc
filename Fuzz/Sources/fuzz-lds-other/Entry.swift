// The "lds-other" fuzz target (FuzzTarget.ldsOther); built and run by Fuzz/run (docs/reliability.md, "Fuzzing").
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzEntry.testOneInput(.ldsOther, data, size)
}

/// SwiftPM links an executable with `main` = `fuzz_lds_other_main`: start libFuzzer's driver from here.
@_cdecl("fuzz_lds_other_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzEntry.main(.ldsOther, argc, argv, fuzzTestOneInput)
}
