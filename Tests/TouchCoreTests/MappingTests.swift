import Testing
@testable import TouchCore

@Suite struct MappingTests {
    // A 0…999 × 0…499 device on a 1000×500 screen: raw units equal points before transforms.
    let x = AbsInfo(minimum: 0, maximum: 999)
    let y = AbsInfo(minimum: 0, maximum: 499)
    let screen = Size(1000, 500)

    func map(_ settings: DeviceSettings, _ rx: Int32, _ ry: Int32) -> Point {
        DeviceMapping(x: x, y: y, settings: settings, screen: screen).map(x: rx, y: ry)
    }

    @Test func identityNormalisesByTheAxisRange() {
        #expect(map(DeviceSettings(), 0, 0) == Point(0, 0))
        #expect(map(DeviceSettings(), 250, 100) == Point(250, 100))
        #expect(map(DeviceSettings(), 999, 499) == Point(999, 499))
    }

    @Test func axisMinimumIsTheScreenEdgeAndScalingUsesTheRange() {
        // 42…1981 (the eGalax range): 1940 units over 800 points.
        let m = DeviceMapping(x: AbsInfo(minimum: 42, maximum: 1981), y: AbsInfo(minimum: 42, maximum: 1981),
                              screen: Size(800, 480))
        #expect(m.map(x: 42, y: 42) == Point(0, 0))
        let p = m.map(x: 42 + 970, y: 42 + 970)
        #expect(p == Point(400, 240))
    }

    @Test func outOfRangeValuesAreClampedOnScreen() {
        #expect(map(DeviceSettings(), -50, 9999) == Point(0, 500))
    }

    @Test(arguments: [
        // rotation, raw point, expected point: the normalised point (0.25, 0.2) turned clockwise.
        (0, Point(250, 100)),
        (90, Point(800, 125)),     // (1 - y, x) = (0.8, 0.25)
        (180, Point(750, 400)),    // (1 - x, 1 - y) = (0.75, 0.8)
        (270, Point(200, 375)),    // (y, 1 - x) = (0.2, 0.75)
    ])
    func rotations(_ degrees: Int, _ expected: Point) {
        var s = DeviceSettings()
        s.rotation = Rotation(rawValue: degrees)!
        #expect(map(s, 250, 100) == expected)
    }

    @Test func flipsAndSwap() {
        var s = DeviceSettings()
        s.flipX = true
        #expect(map(s, 250, 100) == Point(750, 100))
        s = DeviceSettings(); s.flipY = true
        #expect(map(s, 250, 100) == Point(250, 400))
        s = DeviceSettings(); s.swapXY = true
        #expect(map(s, 250, 100) == Point(200, 125))   // (0.2, 0.25) scaled
    }

    @Test func calibrationMatrixIsAppliedToNormalisedCoordinatesFirst() {
        var s = DeviceSettings()
        // Scale x by a half and shift by 0.1; y unchanged: libinput's 2×3 convention.
        s.calibration = [0.5, 0, 0.1, 0, 1, 0]
        #expect(map(s, 250, 100) == Point(225, 100))    // 0.25 * 0.5 + 0.1 = 0.225
        // Calibration comes before the flip: flipping afterwards mirrors the calibrated value.
        s.flipX = true
        #expect(map(s, 250, 100) == Point(775, 100))
    }

    @Test func pressureIsNormalisedAndMajorScaledLikeX() {
        let m = DeviceMapping(x: AbsInfo(minimum: 0, maximum: 399), y: y, pressure: AbsInfo(minimum: 0, maximum: 200),
                              major: AbsInfo(minimum: 0, maximum: 399), screen: Size(800, 480))
        #expect(m.pressure(50) == 0.25)
        #expect(m.pressure(400) == 1)
        #expect(m.major(10) == 20)
        #expect(m.hasPressure && m.hasMajor)
    }
}

@Suite struct GlobTests {
    @Test func fnmatchStylePatterns() {
        #expect(globMatch("Goodix*", "Goodix Capacitive TouchScreen"))
        #expect(!globMatch("Goodix*", "ELAN Touchscreen"))
        #expect(globMatch("*Touch*", "eGalax Inc. USB TouchController"))
        #expect(globMatch("EP04?0M09", "EP0430M09"))
        #expect(globMatch("[A-F]tmel*", "Atmel maXTouch"))
        #expect(!globMatch("[!A]tmel*", "Atmel maXTouch"))
        #expect(globMatch("*", ""))
        #expect(!globMatch("abc", "abcd"))
    }
}
