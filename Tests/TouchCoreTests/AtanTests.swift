import Testing
@testable import TouchCore

@Suite struct AtanTests {
    @Test func matchesKnownAngles() {
        #expect(abs(atan2Approx(1, 1) - Double.pi / 4) < 1e-14)
        #expect(abs(atan2Approx(1, 0) - Double.pi / 2) < 1e-14)
        #expect(abs(atan2Approx(0, -1) - Double.pi) < 1e-14)
        #expect(abs(atan2Approx(-1, -1) + 3 * Double.pi / 4) < 1e-14)
        #expect(abs(atan2Approx(3, -4) - 2.498091544796509) < 1e-14)
    }
}
