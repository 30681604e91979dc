import MRTDReader
import Testing

@testable import StepUp

/// StepUp speaks the reader's verdict rule through exhaustive mappings, never a copy of it.
@Suite struct VerdictMappingTests {
    @Test func derivedIsTheReadersRuleForEveryCombination() {
        for v in VerificationOutcome.ChipVerification.allCases {
            for c in VerificationOutcome.CloneDetection.allCases {
                let rule = VerdictRule.status(chipVerification: v, cloneDetection: c)
                #expect(
                    StepUpStatus.derived(
                        chipVerification: ChipVerification(v), chipCloneDetection: ChipCloneDetection(c))
                        == StepUpStatus(rule), "\(v) \(c)")
            }
        }
    }

    @Test func mappingsKeepTheWireValues() {
        for v in VerificationOutcome.ChipVerification.allCases {
            #expect(ChipVerification(v).rawValue == v.rawValue)
            #expect(ChipVerification(v).outcome == v)
        }
        for c in VerificationOutcome.CloneDetection.allCases {
            #expect(ChipCloneDetection(c).rawValue == c.rawValue)
            #expect(ChipCloneDetection(c).outcome == c)
        }
        for s in VerificationOutcome.Status.allCases { #expect(StepUpStatus(s).rawValue == s.rawValue) }
    }
}
