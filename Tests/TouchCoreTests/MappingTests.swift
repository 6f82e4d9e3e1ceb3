import Testing
@testable import TouchCore
import TouchTestSupport

@Suite struct MappingTests {
    // A 0…100 × 0…100 device on a 101×51 screen: the axis ends are the first and last points
    // (0…100 across, 0…50 down), so a normalised (0.25, 0.2) is the point (25, 10).
    let x = AbsInfo(minimum: 0, maximum: 100)
    let y = AbsInfo(minimum: 0, maximum: 100)
    let screen = Size(101, 51)

    func map(_ settings: DeviceSettings, _ rx: Int32, _ ry: Int32) -> Point {
        DeviceMapping(x: x, y: y, settings: settings, screen: screen).map(x: rx, y: ry)
    }

    @Test func axisEndsAreTheScreensFirstAndLastPoints() {
        #expect(map(DeviceSettings(), 0, 0) == Point(0, 0))
        #expect(map(DeviceSettings(), 25, 20) == Point(25, 10))
        #expect(map(DeviceSettings(), 100, 100) == Point(100, 50))
        // A 0…799 axis on 800 points maps value v to point v.
        let m = DeviceMapping(x: screenX, y: screenY, screen: testScreen)
        #expect(m.map(x: 799, y: 479) == Point(799, 479) && m.map(x: 123, y: 45) == Point(123, 45))
    }

    @Test func axisMinimumIsTheScreenEdgeAndScalingUsesTheRange() {
        // 42…1982 (1940 units) over an 801×481 screen: the middle value lands mid-screen.
        let m = DeviceMapping(x: AbsInfo(minimum: 42, maximum: 1982), y: AbsInfo(minimum: 42, maximum: 1982),
                              screen: Size(801, 481))
        #expect(m.map(x: 42, y: 42) == Point(0, 0))
        #expect(m.map(x: 42 + 970, y: 42 + 970) == Point(400, 240))
        #expect(m.map(x: 1982, y: 1982) == Point(800, 480))
    }

    @Test func outOfRangeValuesAreClampedOnScreen() {
        #expect(map(DeviceSettings(), -50, 9999) == Point(0, 50))
    }

    @Test(arguments: [
        // rotation, expected point: the normalised point (0.25, 0.2) turned clockwise.
        (0, Point(25, 10)),
        (90, Point(80, 12.5)),     // (1 - y, x) = (0.8, 0.25)
        (180, Point(75, 40)),      // (1 - x, 1 - y) = (0.75, 0.8)
        (270, Point(20, 37.5)),    // (y, 1 - x) = (0.2, 0.75)
    ])
    func rotations(_ degrees: Int, _ expected: Point) {
        var s = DeviceSettings()
        s.rotation = Rotation(rawValue: degrees)!
        #expect(map(s, 25, 20) == expected)
    }

    @Test func flipsAndSwap() {
        var s = DeviceSettings()
        s.flipX = true
        #expect(map(s, 25, 20) == Point(75, 10))
        s = DeviceSettings(); s.flipY = true
        #expect(map(s, 25, 20) == Point(25, 40))
        s = DeviceSettings(); s.swapXY = true
        #expect(map(s, 25, 20) == Point(20, 12.5))   // (0.2, 0.25) scaled
    }

    @Test func calibrationMatrixIsAppliedToNormalisedCoordinatesFirst() {
        var s = DeviceSettings()
        // Scale x by a half and shift by 0.1; y unchanged: libinput's 2×3 convention.
        s.calibration = [0.5, 0, 0.1, 0, 1, 0]
        #expect(map(s, 25, 20) == Point(22.5, 10))    // 0.25 * 0.5 + 0.1 = 0.225
        // Calibration comes before the flip: flipping afterwards mirrors the calibrated value.
        s.flipX = true
        #expect(map(s, 25, 20) == Point(77.5, 10))
    }

    @Test func pressureIsNormalisedAndMajorScaledLikeX() {
        let m = DeviceMapping(x: AbsInfo(minimum: 0, maximum: 400), y: y, pressure: AbsInfo(minimum: 0, maximum: 200),
                              major: AbsInfo(minimum: 0, maximum: 400), screen: Size(801, 481))
        #expect(m.pressure(50) == 0.25)
        #expect(m.pressure(400) == 1)
        #expect(m.major(10) == 20)
        #expect(m.hasPressure && m.hasMajor)
    }

    /// The property (issue: touches at the panel's edge hit nothing): for every rotation, flip,
    /// swap and a set of calibrations, every corner and edge midpoint of the panel lands on the
    /// screen, in [0, w) × [0, h), and on the view that covers that part of the screen.
    @Test func everyEdgeOfThePanelLandsOnScreenOnTheViewThere() {
        // A 3 × 3 grid of views covering an 800 × 480 screen.
        var cells: [String] = []
        for r in 0..<3 { for c in 0..<3 {
            let x = c * 800 / 3, width = (c + 1) * 800 / 3 - x   // apart: Swift 6.0 gave up type-checking them inside the string
            cells.append("{\"id\": \"c\(c)\(r)\", \"frame\": [\(x), \(r * 160), \(width), 160]}")
        } }
        let cfg = scene(cells.joined(separator: ","))
        let w = 800.0, h = 480.0
        let calibrations: [[Double]] = [[1, 0, 0, 0, 1, 0], [-1, 0, 1, 0, 1, 0], [1, 0, 0, 0, -1, 1],
                                        [1.2, 0, -0.1, 0, 1.2, -0.1], [0, 1, 0, 1, 0, 0], [1, 0.05, 0, 0.05, 1, 0]]
        let device = (x: AbsInfo(minimum: 40, maximum: 1987), y: AbsInfo(minimum: -100, maximum: 3000))
        var checked = 0
        for rotation in [Rotation.r0, .r90, .r180, .r270] {
            for flipX in [false, true] { for flipY in [false, true] { for swapXY in [false, true] {
                for calibration in calibrations {
                    var s = DeviceSettings()
                    s.rotation = rotation; s.flipX = flipX; s.flipY = flipY; s.swapXY = swapXY; s.calibration = calibration
                    let m = DeviceMapping(x: device.x, y: device.y, settings: s, screen: Size(w, h))
                    for fx in [0.0, 0.5, 1.0] { for fy in [0.0, 0.5, 1.0] where fx != 0.5 || fy != 0.5 {
                        let rx = Int32(Double(device.x.minimum) + fx * Double(device.x.maximum - device.x.minimum))
                        let ry = Int32(Double(device.y.minimum) + fy * Double(device.y.maximum - device.y.minimum))
                        let p = m.map(x: rx, y: ry)
                        #expect(p.x >= 0 && p.x < w && p.y >= 0 && p.y < h, "\(s) (\(fx), \(fy)) → \(p)")
                        var trace: [HitStep] = []
                        let hit = cfg.scene.hitTest(screen: p, tracing: false, trace: &trace)
                        let column = min(Int(p.x * 3 / w), 2), row = min(Int(p.y * 3 / h), 2)
                        #expect(cfg.scene.id(of: hit?.view) == "c\(column)\(row)", "\(s) (\(fx), \(fy)) → \(p)")
                        checked += 1
                    } }
                    // With the identity or a pure mirror, a panel corner is exactly a screen corner.
                    if calibration == [1, 0, 0, 0, 1, 0] || calibration == [-1, 0, 1, 0, 1, 0] {
                        let corners = [(device.x.minimum, device.y.minimum), (device.x.maximum, device.y.maximum),
                                       (device.x.minimum, device.y.maximum), (device.x.maximum, device.y.minimum)]
                        for (cx, cy) in corners {
                            let p = m.map(x: cx, y: cy)
                            #expect((p.x == 0 || p.x == w - 1) && (p.y == 0 || p.y == h - 1), "\(s) corner → \(p)")
                        }
                    }
                }
            } } }
        }
        #expect(checked == 4 * 8 * 6 * 8)
    }

    /// Rotation 180 is a true half turn: the panel's first point is the screen's last, exactly.
    @Test func aHalfTurnDoesNotShift() {
        var s = DeviceSettings()
        s.rotation = .r180
        let m = DeviceMapping(x: screenX, y: screenY, settings: s, screen: testScreen)
        #expect(m.map(x: 799, y: 479) == Point(0, 0))
        #expect(m.map(x: 0, y: 0) == Point(799, 479))
        #expect(m.map(x: 100, y: 40) == Point(699, 439))
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
