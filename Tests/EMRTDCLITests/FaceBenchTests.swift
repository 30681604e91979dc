import Testing

@testable import EMRTDBench

/// The face row of `emrtd bench`: the sample is what the criterion names and the work is done; the time is
/// measured by the benchmark, never asserted here.
@Suite struct FaceBenchTests {
    @Test func faceRowDecodesATypicalJPEG2000FaceAndReencodesIt() {
        let face = FaceBench.run(runs: 2)
        #expect(face.error == nil, "\(face.error ?? "")")
        #expect((15_000...25_000).contains(face.storedBytes), "the sample is \(face.storedBytes) bytes")
        #expect(face.width == 480 && face.height == 600)
        #expect(face.jpegBytes > 1_000)
        #expect(face.cpuMsMin <= face.cpuMs && face.cpuMs <= face.cpuMsMax && face.decodeCpuMs <= face.cpuMs)
        #expect(face.peakMB != nil || !face.peakResetSupported)
        let acceptance = FaceBench.acceptance(face)
        #expect(acceptance.criterion.contains("≤ 50 ms"))
        #expect(acceptance.detail.contains("\(face.storedBytes) bytes"))
        #expect(FaceBench.text(face).count == 5)
    }
}
