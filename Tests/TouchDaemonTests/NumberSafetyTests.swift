import Testing
import TouchCore
import TouchCapture
@testable import TouchDaemon

/// Numbers from users and recordings reach no trapping conversion (issue 21, item 4).
@Suite struct NumberSafetyTests {
    @Test func calibrationTargetsOffAnyScreenAreRefusedByName() {
        #expect(throws: UsageError.self) { try CalibrateCommand.parseTargets("1e19,48;10,10;20,20") }
        #expect(throws: UsageError.self) { try CalibrateCommand.parseTargets("10,-2000000") }
        let ok = try? CalibrateCommand.parseTargets("1000000,48;-1000000,0")
        #expect(ok?.count == 2)
    }

    @Test func aMisclickAnyDistanceAwayIsWordsNotATrap() {
        #expect(Calibration.wholePoints(12.4) == "12")
        #expect(Calibration.wholePoints(1e19) == "> 10^15")
        #expect(Calibration.wholePoints(-1e300) == "< -10^15")
        #expect(Calibration.wholePoints(.infinity) == "∞")
        #expect(Calibration.wholePoints(.nan) == "∞")
    }

    @Test func aReplaysTimeSaturatesInsteadOfTrapping() {
        #expect(ReplaySource.offset(5, 10) == 15)
        #expect(ReplaySource.offset(5, -3) == 2)
        // 10¹² s of capture at ×0.1, a speed of 1e-308: due at the end of time.
        #expect(ReplaySource.offset(1_000, 1e12 * 1e6 / 0.1) == Int64.max / 4)
        #expect(ReplaySource.offset(1_000, 1e6 / 1e-308) == Int64.max / 4)
        #expect(ReplaySource.offset(Int64.max / 4, 1e18) == Int64.max / 4)
        #expect(ReplaySource.offset(0, -.infinity) == 0)
    }
}
