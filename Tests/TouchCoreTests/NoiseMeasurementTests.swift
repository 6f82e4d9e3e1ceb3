import Testing
@testable import TouchCore
import TouchTestSupport

/// Issue 30, item 4: `touchd measure` checks its input. It tells a still finger from a moving
/// one and measures noise only where a finger was still; it sets apart phantom contacts and
/// suggests a minimumDuration that removes them; every number it suggests passes check-config.
@Suite struct NoiseMeasurementTests {
    func measure(_ f: Finger, device: DeviceInfo = screenDevice()) -> NoiseMeasurement {
        NoiseMeasurement(events: f.events, device: device, screen: testScreen)
    }

    /// The suggestion, as a device entry, passes the config's checks.
    func passesCheckConfig(_ s: NoiseMeasurement.Suggestion) -> Bool {
        let filter = s.json.dropFirst("{\"filter\":".count).dropLast()
        return (try? Config.parse("""
            {"windows": [], "devices": [{"match": {"name": "*"}, "filter": \(filter)}]}
            """)) != nil
    }

    @Test func aStillFingersNoiseIsMeasuredAndASlowDragIsNot() {
        // 1 s held still with ±2 points of jitter, frames every 10 ms.
        var f = Finger()
        f.down(0, 300, 300); f.syn()
        let jitter: [(Int32, Int32)] = [(2, 1), (-2, -1), (1, 2), (-1, -2), (2, -2), (-2, 2)]
        for k in 0..<100 { f.move(0, 300 + jitter[k % 6].0, 300 + jitter[k % 6].1); f.syn() }
        f.up(0); f.syn()
        let still = measure(f)
        #expect(still.measuredNoise)
        #expect(still.noiseX.p95 == 4 && still.noiseY.p95 == 4)
        #expect(still.stillSeconds > 0.9 && still.movingSeconds < 0.1, "\(still.stillSeconds) \(still.movingSeconds)")
        #expect(still.suggestion.filter.hysteresis == .points(6))

        // A slow drag, 0.8 points per frame, with the same jitter: every step is small (the
        // old measure took it all for noise) and a dozen samples fit in a still finger's box,
        // but it drifts: it is motion.
        var d = Finger()
        d.down(0, 100, 300); d.syn()
        for k in 0..<300 { d.move(0, 100 + Int32(k * 4 / 5) + jitter[k % 6].0, 300 + jitter[k % 6].1); d.syn() }
        d.up(0); d.syn()
        let drag = measure(d)
        #expect(!drag.measuredNoise, "\(drag.noiseX)")
        #expect(drag.movingSeconds > 2.9)
        #expect(!drag.suggestion.json.contains("hysteresis"), "\(drag.suggestion.json)")
        #expect(passesCheckConfig(drag.suggestion))
    }

    /// Five 80 ms taps in one place (a frame every 10 ms), two one-frame ghosts, and a 30 ms
    /// contact in four frames far from everything.
    func tapsWithPhantoms() -> Finger {
        var f = Finger()
        for k in 0..<5 {
            f.time = Int64(k) * 300_000
            f.down(0, 200 + Int32(k), 200); f.syn()
            for j in 1...7 { f.move(0, 200 + Int32(k), 200 + Int32(j % 2)); f.syn() }
            f.up(0); f.syn()
        }
        f.time = 1_600_000; f.down(1, 600, 50); f.syn(); f.up(1); f.syn()          // a ghost: 10 ms, 1 frame
        f.time = 1_700_000; f.down(1, 500, 400); f.syn(); f.up(1); f.syn()         // another
        f.time = 1_800_000; f.down(1, 700, 400); f.syn(); f.move(1, 701, 400); f.syn(); f.move(1, 702, 400); f.syn(); f.syn(); f.up(1); f.syn()
        return f
    }

    @Test func phantomsAreSetApartAndTheSuggestedMinimumDurationRemovesThem() {
        let m = measure(tapsWithPhantoms())
        #expect(m.contacts.count == 8)
        #expect(m.phantoms.map(\.reason) == [.short, .short, .isolated])
        let s = m.suggestion
        // Over the longest phantom (40 ms), under every tap (the shortest lasts its 8 frames).
        #expect(s.filter.minimumDuration > 0.04 && s.filter.minimumDuration < 0.08, "\(s.filter.minimumDuration)")
        #expect(s.phantomsRemoved == 3 && s.touchDownsKept == 5 && s.touchDowns == 5)
        #expect(s.json.contains("\"minimumDuration\":"))
        #expect(passesCheckConfig(s))
        // Without phantoms, nothing about them.
        var clean = Finger()
        clean.down(0, 200, 200); clean.syn(after: 80); clean.up(0); clean.syn()
        #expect(measure(clean).phantoms.isEmpty)
        #expect(measure(clean).suggestion.filter.minimumDuration == 0)
    }

    /// A real quiet panel's taps (one frame down, one up, 82 ms apart) are not phantoms.
    @Test func aQuietPanelsTapIsNotAPhantom() {
        var f = Finger()
        for k in 0..<9 { f.time = Int64(k) * 200_000; f.down(0, 340 + Int32(k), 240); f.syn(after: 82); f.up(0); f.syn() }
        #expect(measure(f).phantoms.isEmpty)
    }

    /// Phantoms as long as the shortest tap: no duration tells them apart, and it says so.
    @Test func phantomsAsLongAsATapGetNoMinimumDuration() {
        var f = Finger()
        // A contact of 45 ms in three frames (not a phantom), and a phantom of 46 ms in one.
        f.down(0, 200, 200); f.syn(after: 15); f.move(0, 201, 200); f.syn(after: 15); f.move(0, 202, 200); f.syn(after: 15); f.up(0); f.syn()
        f.time = 500_000
        f.down(0, 600, 50); f.syn(after: 46); f.up(0); f.syn()
        let s = measure(f).suggestion
        #expect(s.filter.minimumDuration == 0)
        #expect(s.warnings.contains { $0.hasPrefix("minimumDuration left out") }, "\(s.warnings)")
        #expect(passesCheckConfig(s))
    }

    /// The suggested minimumDuration is checked by running the whole suggested filter over
    /// the recording: a tap that starts light is a touch only once its pressure reaches the
    /// suggested threshold, 5 ms before it lifts — a minimumDuration over the phantoms' 10 ms
    /// would drop it, so none is suggested, and a warning says why.
    @Test func aMinimumDurationThatWouldDropATapIsLeftOut() {
        var f = Finger()
        for k in 0..<3 {
            f.time = Int64(k) * 300_000
            f.down(0, 300, 300); f.ev(EV.ABS, ABS.MT_PRESSURE, 100); f.syn(after: 80); f.up(0); f.syn()
        }
        f.time = 900_000
        f.down(0, 300, 300); f.ev(EV.ABS, ABS.MT_PRESSURE, 20); f.syn(after: 75)
        f.ev(EV.ABS, ABS.MT_SLOT, 0); f.ev(EV.ABS, ABS.MT_PRESSURE, 100); f.syn(after: 5); f.up(0); f.syn()
        for k in 0..<2 { f.time = 1_200_000 + Int64(k) * 100_000; f.down(1, 600, 60); f.ev(EV.ABS, ABS.MT_PRESSURE, 100); f.syn(); f.up(1); f.syn() }
        let m = measure(f, device: screenDevice(pressure: true))
        #expect(m.phantoms.count == 2)
        let s = m.suggestion
        #expect(s.filter.pressure != nil)
        #expect(s.filter.minimumDuration == 0)
        #expect(s.warnings.contains { $0.contains("left out: over this recording it would remove 2 of 2 phantoms and keep 3 of 4 other touch-downs") },
                "\(s.warnings)")
    }

    /// A touch-major that reads 2·10⁹ (and an axis to match): the palm size it would suggest
    /// is clamped to the largest check-config allows, with a warning naming it.
    @Test func everySuggestedNumberIsClampedIntoItsRange() {
        var info = screenDevice(pressure: true)
        info.abs[ABS.MT_TOUCH_MAJOR] = AbsInfo(minimum: 0, maximum: Int32.max)
        var f = Finger()
        for k in 0..<4 {
            f.time = Int64(k) * 300_000
            f.down(0, 300, 300); f.ev(EV.ABS, ABS.MT_TOUCH_MAJOR, 2_000_000_000); f.ev(EV.ABS, ABS.MT_PRESSURE, 200); f.syn(after: 80)
            f.up(0); f.syn()
        }
        let s = measure(f, device: info).suggestion
        #expect(s.filter.palmSize == ConditioningSettings.palmSizeRange.upperBound)
        #expect(s.warnings.contains { $0.hasPrefix("palmSize ") && $0.contains("suggested 100000") }, "\(s.warnings)")
        #expect(s.json.contains("\"palmSize\":100000"), "\(s.json)")
        #expect(passesCheckConfig(s))
    }
}
