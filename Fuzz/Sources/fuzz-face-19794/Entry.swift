// The "face-19794" fuzz target (FuzzTarget.face19794); built and run by Fuzz/run (docs/reliability.md, "Fuzzing").
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzEntry.testOneInput(.face19794, data, size)
}

/// SwiftPM links an executable with `main` = `fuzz_face_19794_main`: start libFuzzer's driver from here.
@_cdecl("fuzz_face_19794_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    FuzzEntry.main(.face19794, argc, argv, fuzzTestOneInput)
}
