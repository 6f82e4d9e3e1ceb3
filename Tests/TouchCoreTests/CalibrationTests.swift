import Testing
@testable import TouchCore

/// Known distortions recovered: taps generated where a distorted panel reports the targets,
/// the fit gives back the matrix that undoes the distortion.
@Suite struct CalibrationTests {
    let screen = Size(800, 480)
    let axes = Calibration.Axes(x: AbsInfo(minimum: 0, maximum: 4095), y: AbsInfo(minimum: 0, maximum: 4095))

    /// The raw taps a panel gives for `targets` when `truth` is the calibration that maps its
    /// readings onto the screen (under `settings`' swap, flips and rotation).
    func taps(for targets: [Point], truth m: [Double], settings: DeviceSettings) -> [Calibration.Sample] {
        targets.map { t in
            let c = Calibration.backward((t.x / 799, t.y / 479), settings)
            // Invert the affine map c = M·(n, 1).
            let det = m[0] * m[4] - m[1] * m[3]
            let cx = c.0 - m[2], cy = c.1 - m[5]
            let nx = (m[4] * cx - m[1] * cy) / det, ny = (m[0] * cy - m[3] * cx) / det
            return Calibration.Sample(raw: (nx * 4095, ny * 4095), target: t)
        }
    }

    static let distortions: [(String, [Double])] = [
        ("identity", [1, 0, 0, 0, 1, 0]),
        ("scale and offset", [1.08, 0, -0.04, 0, 0.93, 0.05]),
        ("shear", [1, 0.06, -0.03, 0.04, 1, -0.02]),
        ("three degrees of rotation", [0.99863, -0.05234, 0.03, 0.05234, 0.99863, -0.02]),
        ("all of them", [1.05, 0.04, -0.06, -0.03, 0.96, 0.04]),
    ]

    @Test(arguments: distortions)
    func aKnownDistortionIsRecovered(_ name: String, _ truth: [Double]) throws {
        for rotation in [Rotation.r0, .r90, .r270] {
            for flipX in [false, true] {
                var s = DeviceSettings()
                s.rotation = rotation
                s.flipX = flipX
                let samples = taps(for: Calibration.defaultTargets(screen), truth: truth, settings: s)
                let fit = try Calibration.fit(samples, axes: axes, settings: s, screen: screen)
                for (got, want) in zip(fit.matrix, truth) { #expect(abs(got - want) < 1e-3, "\(name), \(rotation), flipX \(flipX): \(fit.matrix)") }
                #expect(fit.maxError < 0.01)
                // And the mapping with that matrix puts every tap on its target.
                s.calibration = fit.matrix
                let mapping = DeviceMapping(x: axes.x, y: axes.y, settings: s, screen: screen)
                for smp in samples {
                    let p = mapping.map(x: Int32(smp.raw.x.rounded()), y: Int32(smp.raw.y.rounded()))
                    #expect(p.distance(to: smp.target) < 1, "\(name): \(p) for \(smp.target)")
                }
            }
        }
    }

    @Test func misclicksTooFewCollinearAndSamePlaceAreRefused() {
        let s = DeviceSettings()
        let truth = [1.05, 0.04, -0.06, -0.03, 0.96, 0.04]
        var samples = taps(for: Calibration.defaultTargets(screen), truth: truth, settings: s)
        // Target 3 tapped 150 points off: the other four place it far from its tap.
        samples[2].raw.x += 150 / 799 * 4095
        if case .misclick(let t, let off)? = Calibration.misclick(samples, axes: axes, settings: s, screen: screen, tolerance: 40) {
            #expect(t == 3 && off > 100)
        } else {
            Issue.record("the misclick went unnoticed")
        }
        // The same five, well tapped: no misclick.
        let good = taps(for: Calibration.defaultTargets(screen), truth: truth, settings: s)
        #expect(Calibration.misclick(good, axes: axes, settings: s, screen: screen, tolerance: 40) == nil)
        #expect(throws: Calibration.Failure.tooFew(2)) { try Calibration.fit(Array(good.prefix(2)), axes: axes, settings: s, screen: screen) }
        let line = taps(for: [Point(100, 100), Point(400, 240), Point(700, 380)], truth: truth, settings: s)
        #expect(throws: Calibration.Failure.collinear) { try Calibration.fit(line, axes: axes, settings: s, screen: screen) }
        var twice = good
        twice[3].raw = twice[1].raw
        #expect(throws: Calibration.Failure.samePlace(2, 4)) { try Calibration.fit(twice, axes: axes, settings: s, screen: screen) }
    }
}

/// The libinput line `touchd calibrate` prints folds the device's swap, flips and rotation
/// into the matrix (issue 33: it used to leave them out, 90° off on a rotated panel): libinput
/// with that one matrix puts every point where touchd's steps do.
@Suite struct LibinputMatrixTests {
    @Test(arguments: [Rotation.r0, .r90, .r180, .r270])
    func theFoldedMatrixMapsAsTouchdsSteps(rotation: Rotation) {
        let m = [0.9, 0.05, 0.03, -0.02, 1.1, -0.04]
        for flags in 0..<8 {
            var s = DeviceSettings()
            s.rotation = rotation
            s.swapXY = flags & 1 != 0
            s.flipX = flags & 2 != 0
            s.flipY = flags & 4 != 0
            s.calibration = m
            let mapping = DeviceMapping(x: AbsInfo(minimum: 0, maximum: 1000), y: AbsInfo(minimum: 0, maximum: 1000), settings: s, screen: Size(800, 480))
            let l = Calibration.libinputMatrix(m, settings: s)
            for (x, y) in [(Int32(100), Int32(200)), (500, 500), (800, 300), (250, 750)] {
                let nx = Double(x) / 1000, ny = Double(y) / 1000
                let want = mapping.normalised(x: x, y: y)
                let got = (l[0] * nx + l[1] * ny + l[2], l[3] * nx + l[4] * ny + l[5])
                #expect(abs(got.0 - want.0) < 1e-12 && abs(got.1 - want.1) < 1e-12, "rotation \(rotation) flags \(flags) at \(x),\(y): \(got) vs \(want)")
            }
        }
    }

    @Test func withoutTurnsItIsTheCalibration() {
        let m = [0.9, 0.05, 0.03, -0.02, 1.1, -0.04]
        #expect(Calibration.libinputMatrix(m, settings: DeviceSettings()) == m)
    }
}
