// The "face-39794" fuzz target (FuzzTarget.face39794); built and run by Fuzz/run (docs/reliability.md, "Fuzzing").
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzEntry.testOneInput(.face39794, data, size)
}

/// SwiftPM links an executable with `main` = `fuzz_face_39794_main`: start libFuzzer's driver from here.
@_cdecl("fuzz_face_39794_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzEntry.main(.face39794, argc, argv, fuzzTestOneInput)
}
