// The "clone-detection" fuzz target (FuzzTarget.cloneDetection); built and run by Fuzz/run (docs/reliability.md, "Fuzzing").
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzEntry.testOneInput(.cloneDetection, data, size)
}

/// SwiftPM links an executable with `main` = `fuzz_clone_detection_main`: start libFuzzer's driver from here.
@_cdecl("fuzz_clone_detection_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzEntry.main(.cloneDetection, argc, argv, fuzzTestOneInput)
}
