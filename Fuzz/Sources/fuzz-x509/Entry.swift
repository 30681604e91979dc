// The "x509" fuzz target (FuzzTarget.x509); built and run by Fuzz/run (docs/reliability.md, "Fuzzing").
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzEntry.testOneInput(.x509, data, size)
}

/// SwiftPM links an executable with `main` = `fuzz_x509_main`: start libFuzzer's driver from here.
@_cdecl("fuzz_x509_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzEntry.main(.x509, argc, argv, fuzzTestOneInput)
}
